import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { AssignerProtocol, type Kafka, type PartitionAssigner } from 'kafkajs';
import { createTestDatabase, TestDatabase } from '@flaglens/testing/support/test-database';
import { BROKERS, createTestTopic, produce, testKafka } from '@flaglens/testing/support/test-kafka';
import { flagEvent, toMessage } from '@flaglens/testing/support/event-factory';
import { freePort, httpGet } from '@flaglens/testing/support/http';
import { startApp, stopApp } from '@flaglens/testing/support/processes';
import { tcpProxy } from '@flaglens/testing/support/tcp-proxy';
import { waitFor } from '@flaglens/testing/support/wait-for';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A stack trace in a log line (a JSON `stack` field, or frames as text or escaped in JSON). */
const STACK = /"stack"|(^|\\n|\n)\s*at \S+ \(|(^|\\n|\n)\s*at [^\s]+:\d+:\d+/;

/** A consumer-group member speaking another assignment protocol than the projector's (kafkajs RoundRobin). */
const otherProtocol: PartitionAssigner = () => ({
  name: 'another-application',
  version: 1,
  assign: async ({ members }) =>
    members.map((m) => ({
      memberId: m.memberId,
      memberAssignment: AssignerProtocol.MemberAssignment.encode({
        version: 1,
        assignment: {},
        userData: Buffer.alloc(0),
      }),
    })),
  protocol: ({ topics }) => ({
    name: 'another-application',
    metadata: AssignerProtocol.MemberMetadata.encode({ version: 1, topics, userData: Buffer.alloc(0) }),
  }),
});

/**
 * Start-up of a real projector process (real Kafka and Postgres) when Kafka is not ready for it: the topic
 * does not exist yet, or nothing listens at the broker's address. It waits, says so once, serves its health
 * endpoints meanwhile, and starts projecting once Kafka is there. And liveness once kafkajs gives up.
 */
describe('projector start-up and liveness', () => {
  let kafka: Kafka;
  let db: TestDatabase;
  let child: ChildProcess | undefined;
  let logs: string[];
  let port: number;
  const cleanups: (() => Promise<unknown>)[] = [];

  const lines = () =>
    logs
      .join('')
      .split('\n')
      .filter((l) => l.trim() !== '');
  const ready = async () => {
    const r = await httpGet(port, '/health/ready');
    return { status: r.status, body: r.json() as { details?: Record<string, Record<string, unknown>> } };
  };

  /** `fromSource`: through ts-node, as a developer may start it (one start here keeps that path working). */
  async function start(env: Record<string, string>, fromSource = false): Promise<void> {
    port = await freePort();
    logs = [];
    child = startApp(
      'projector',
      {
        DATABASE_URL: db.url,
        KAFKA_GROUP_ID: `startup-${randomBytes(3).toString('hex')}`,
        PROJECTOR_PORT: String(port),
        LOG_LEVEL: 'info',
        ...env,
      },
      logs,
      { fromSource },
    );
    await waitFor('health endpoints up', async () => (await httpGet(port, '/health/live')).status > 0, {
      timeoutMs: 60000,
    });
  }

  /** The process keeps running, live and not ready, for `ms`; the wait is said once, without a stack. */
  async function waitsQuietly(ms: number, said: RegExp): Promise<void> {
    await sleep(ms);
    expect(child!.exitCode).toBeNull();
    expect(child!.signalCode).toBeNull();
    expect((await httpGet(port, '/health/live')).status).toBe(200);
    const r = await ready();
    expect(r.status).toBe(503);
    expect(r.body.details?.consumer).toMatchObject({ status: 'down', message: expect.stringMatching(said) });
    const all = lines();
    expect(all.filter((l) => said.test(l))).toHaveLength(1);
    expect(all.filter((l) => STACK.test(l))).toEqual([]);
    // nothing else complains meanwhile (kafkajs retries, the lag monitor)
    expect(all.filter((l) => /"level":(40|50|60)|"level":"(warn|error)"/.test(l))).toHaveLength(1);
  }

  async function projects(topic: string): Promise<void> {
    await produce(
      kafka,
      topic,
      Array.from({ length: 30 }, (_, i) => toMessage(flagEvent(i + 1, `startup-${i % 3}`, i))),
    );
    await waitFor(
      '30 events projected',
      async () => (await db.query<{ n: string }>('SELECT count(*) AS n FROM event_log'))[0].n === '30',
      { timeoutMs: 60000 },
    );
    await waitFor('ready', async () => (await ready()).status === 200, { timeoutMs: 30000 });
    expect(lines().filter((l) => STACK.test(l))).toEqual([]);
  }

  beforeEach(async () => {
    kafka = testKafka();
    db = await createTestDatabase('startup');
  });

  afterEach(async () => {
    if (child) await stopApp(child);
    child = undefined;
    for (const c of cleanups.splice(0)) await c().catch(() => undefined);
    await db.drop();
  });

  it('started before its topic exists: one clear line, no stack trace, stays up; projects once the topic is created', async () => {
    const name = `flaglens.test.startup.${randomBytes(3).toString('hex')}`;
    await start({ KAFKA_BROKERS: BROKERS, KAFKA_TOPIC: name }, true);
    await waitsQuietly(8000, new RegExp(`topic ${name.replace(/\./g, '\\.')} does not exist`));

    const admin = kafka.admin();
    await admin.connect();
    expect(await admin.listTopics()).not.toContain(name); // the projector created nothing
    await admin.disconnect();
    const { topic, drop } = await createTestTopic(kafka, 'startup', 6, name);
    cleanups.push(drop);
    await projects(topic);
    expect(lines().filter((l) => /found topic/.test(l))).toHaveLength(1);
  });

  it('started while nothing listens at the broker address: one clear line, no stack trace, stays up; projects once the broker answers', async () => {
    const { topic, drop } = await createTestTopic(kafka, 'startup');
    cleanups.push(drop);
    // the broker's bootstrap address through a forwarder that is closed for now: connections are refused
    const proxy = await tcpProxy(Number(BROKERS.split(':')[1]), { open: false });
    cleanups.push(() => proxy.close());
    await start({ KAFKA_BROKERS: `127.0.0.1:${proxy.port}`, KAFKA_TOPIC: topic });
    await waitsQuietly(8000, /Kafka broker not reachable/);

    await proxy.open();
    await projects(topic);
    expect(lines().filter((l) => /found topic/.test(l))).toHaveLength(1);
  });

  it('/health/live fails once kafkajs gives up on the consumer for good (a crash it will not restart)', async () => {
    const { topic, drop } = await createTestTopic(kafka, 'startup');
    cleanups.push(drop);
    const group = `startup-${randomBytes(3).toString('hex')}`;
    // another application already holds the group with its own protocol: the projector's join is refused
    // (INCONSISTENT_GROUP_PROTOCOL, not retriable), kafkajs crashes the consumer with restart: false
    const other = kafka.consumer({ groupId: group, partitionAssigners: [otherProtocol] });
    cleanups.push(() => other.disconnect());
    const joined = new Promise<void>((resolve) => other.on(other.events.GROUP_JOIN, () => resolve()));
    await other.connect();
    await other.subscribe({ topic });
    await other.run({ eachMessage: async () => undefined });
    await joined;

    await start({ KAFKA_BROKERS: BROKERS, KAFKA_TOPIC: topic, KAFKA_GROUP_ID: group });
    const live = await waitFor(
      'not live',
      async () => {
        const r = await httpGet(port, '/health/live');
        return r.status === 503 ? r : undefined;
      },
      { timeoutMs: 60000 },
    );
    expect(live!.json()).toMatchObject({
      status: 'error',
      error: { consumer: { status: 'down', message: expect.stringMatching(/stopped for good/) } },
    });
    const r = await ready();
    expect(r.status).toBe(503);
    expect(r.body.details?.consumer).toMatchObject({
      status: 'down',
      message: expect.stringMatching(/stopped for good/),
    });
    expect(lines().filter((l) => /stopped for good/.test(l))).toHaveLength(1);
  });
});
