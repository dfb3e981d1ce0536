import type { INestApplication } from '@nestjs/common';
import type { Kafka, Message } from 'kafkajs';
import { loadConfig } from '@flaglens/config';
import { mapDebeziumChange, parseEvent, type FlagEvent } from '@flaglens/contract';
import { reduceFlagState } from '@flaglens/projections';
import { createProjectorApp } from './main';
import { LiveProjector } from './live-projector.service';
import { createTestDatabase, type TestDatabase } from '@flaglens/testing/support/test-database';
import { BROKERS, createTestTopic, produce, testKafka } from '@flaglens/testing/support/test-kafka';
import { waitFor } from '@flaglens/testing/support/wait-for';
import { DebeziumRelay } from '@flaglens/source/debezium-relay';
import { SourceError } from '@flaglens/source/errors';

/**
 * Per-flag order through Debezium (docs/debezium.md, "Per-flag order"). Debezium keys a change by the row's
 * primary key, so on a topic of several partitions one flag's events are spread, and a consumer may read them
 * in another order than Unleash committed them: the test shows that this changes what flaglens projects
 * (flag state needs a flag's `feature-created` first). Then the answer: Debezium's topic of one partition
 * (commit order), repartitioned by the relay into ours keyed by the contract's key: every flag's events land
 * on one partition in commit order, and the real projector (EVENT_FORMAT=debezium) projects the right state.
 */
const FLAGS = 24;
const T0 = Date.UTC(2026, 10, 1);

/** Unleash's `events` row of one flag's n-th event, as Debezium writes it (envelope, op c). */
function change(id: number, flag: string, type: string, at: number): Message {
  const row = {
    id,
    created_at: new Date(at).toISOString().replace('Z', '123Z'),
    type,
    created_by: 'admin',
    created_by_user_id: 1,
    data: JSON.stringify(
      type === 'feature-created' ? { name: flag, project: 'default', type: 'release' } : {},
    ),
    pre_data: null,
    tags: null,
    feature_name: flag,
    project: 'default',
    environment: null,
  };
  return {
    key: JSON.stringify({ id }), // Debezium's key: the primary key
    value: JSON.stringify({ before: null, after: row, op: 'c', source: { table: 'events' }, ts_ms: at }),
  };
}

/** Commit order: flag by flag interleaved, each flag created, then stale, then archived. */
function history(): Message[] {
  const out: Message[] = [];
  let id = 100;
  for (const type of ['feature-created', 'feature-stale-on', 'feature-archived'])
    for (let f = 0; f < FLAGS; f++) out.push(change(id++, `flag-${f}`, type, T0 + id * 1000));
  return out;
}

const toEvent = (m: { value: Buffer | string | null }): FlagEvent => {
  const d = mapDebeziumChange(m.value as Buffer);
  if (d.kind !== 'event') throw new Error('not an event');
  const p = parseEvent(d.value);
  if (!p.ok) throw new Error(p.reason);
  return p.event;
};

/** Every message of a topic, per partition, in offset order. */
async function readAll(kafka: Kafka, topic: string): Promise<Map<number, { key: string; value: Buffer }[]>> {
  const admin = kafka.admin();
  await admin.connect();
  const ends = await admin.fetchTopicOffsets(topic);
  await admin.disconnect();
  const total = ends.reduce((n, p) => n + Number(p.high), 0);
  const out = new Map<number, { key: string; value: Buffer }[]>(ends.map((p) => [p.partition, []]));
  const consumer = kafka.consumer({ groupId: `read-${topic}-${Date.now()}` });
  await consumer.connect();
  await consumer.subscribe({ topic, fromBeginning: true });
  let n = 0;
  await consumer.run({
    eachMessage: async ({ partition, message }) => {
      out.get(partition)!.push({ key: String(message.key), value: message.value! });
      n++;
    },
  });
  await waitFor(`all of ${topic} read`, async () => n >= total, { timeoutMs: 60_000 });
  await consumer.disconnect();
  return out;
}

describe('Debezium: per-flag order (real Kafka and Postgres)', () => {
  let kafka: Kafka;
  const drops: (() => Promise<void>)[] = [];
  let db: TestDatabase | undefined;
  let app: INestApplication | undefined;

  beforeAll(() => {
    kafka = testKafka();
  });

  afterAll(async () => {
    await app?.close();
    for (const d of drops) await d();
    await db?.drop();
  });

  it('keyed by event id over several partitions, a flag is spread and a legal read order projects wrongly; the relay refuses such a topic', async () => {
    const { topic, drop } = await createTestTopic(kafka, 'dbz-spread', 6);
    drops.push(drop);
    const { topic: ours, drop: dropOurs } = await createTestTopic(kafka, 'dbz-spread-ours', 6);
    drops.push(dropOurs);
    const commitOrder = history();
    await produce(kafka, topic, commitOrder); // the default partitioner: murmur2 of the key, as Debezium's
    const parts = await readAll(kafka, topic);

    // a flag's events are on several partitions
    const partitionsOf = new Map<string, Set<number>>();
    for (const [p, ms] of parts)
      for (const m of ms) {
        const e = toEvent(m);
        partitionsOf.set(e.featureName!, (partitionsOf.get(e.featureName!) ?? new Set()).add(p));
      }
    const spread = [...partitionsOf.values()].filter((s) => s.size > 1).length;
    expect(spread).toBeGreaterThan(FLAGS / 2);

    // Kafka keeps order within a partition only: reading the partitions one after the other, last first, is
    // an order a consumer may see (several projector instances, a lagging partition). It is not commit order.
    const legal = [...parts.keys()].sort((a, b) => b - a).flatMap((p) => parts.get(p)!.map(toEvent));
    const right = reduceFlagState(
      new Map(),
      commitOrder.map((m) => toEvent({ value: m.value as string })),
    );
    const wrong = reduceFlagState(new Map(), legal);
    const state = (r: typeof right) =>
      Object.fromEntries(r.rows.map((f) => [f.name, { stale: f.stale, archived: f.archivedAt !== null }]));
    expect(Object.values(state(right))).toEqual(Array(FLAGS).fill({ stale: true, archived: true }));
    expect(state(wrong)).not.toEqual(state(right)); // events of a flag before its feature-created: lost
    expect(wrong.skipped.length).toBeGreaterThan(0);

    // so the relay does not take it
    const relay = new DebeziumRelay({
      kafka,
      from: topic,
      to: ours,
      groupId: `relay-${topic}`,
      once: true,
      log: () => undefined,
    });
    await expect(relay.run()).rejects.toThrow(SourceError);
    await expect(relay.run()).rejects.toThrow(/has 6 partitions: .* their order is lost/);
  });

  it('one partition, repartitioned by the contract key: each flag on one partition in commit order; the projector projects it right', async () => {
    const { topic, drop } = await createTestTopic(kafka, 'dbz-one', 1);
    drops.push(drop);
    const { topic: ours, drop: dropOurs } = await createTestTopic(kafka, 'dbz-ours', 6);
    drops.push(dropOurs);
    const commitOrder = history();
    // plus what Unleash never does: an update of an event row, a delete and its tombstone
    const row = JSON.parse(commitOrder[0].value as string).after;
    const update = {
      key: '{"id":100}',
      value: JSON.stringify({ before: row, after: { ...row, created_by: 'someone' }, op: 'u', source: {} }),
    };
    const del = {
      key: '{"id":100}',
      value: JSON.stringify({ before: row, after: null, op: 'd', source: {} }),
    };
    const tombstone = { key: '{"id":100}', value: null };
    await produce(kafka, topic, [...commitOrder, update, del, tombstone]);

    const summary = await new DebeziumRelay({
      kafka,
      from: topic,
      to: ours,
      groupId: `relay-${topic}`,
      once: true,
      log: () => undefined,
    }).run();
    expect(summary).toEqual({ relayed: commitOrder.length + 2, tombstones: 1, unchanged: 0 });

    // each flag's events on one partition, in commit order
    const parts = await readAll(kafka, ours);
    const seen = new Map<string, { partition: number; ids: number[] }>();
    for (const [p, ms] of parts)
      for (const m of ms) {
        const d = mapDebeziumChange(m.value);
        if (d.kind !== 'event') continue;
        expect(m.key).toBe(d.key);
        const s = seen.get(d.key) ?? { partition: p, ids: [] };
        expect(s.partition).toBe(p);
        s.ids.push(d.id);
        seen.set(d.key, s);
      }
    for (let f = 0; f < FLAGS; f++)
      expect(seen.get(`flag-${f}`)!.ids).toEqual([100 + f, 100 + FLAGS + f, 100 + 2 * FLAGS + f]);

    // the real projector, EVENT_FORMAT=debezium, on our topic
    db = await createTestDatabase('dbz_order');
    app = await createProjectorApp(
      loadConfig({
        DATABASE_URL: db.url,
        KAFKA_BROKERS: BROKERS,
        KAFKA_TOPIC: ours,
        KAFKA_GROUP_ID: `projector-${ours}`,
        EVENT_FORMAT: 'debezium',
      }),
    );
    app.useLogger(['error']);
    await app.init();
    const consumed = async () =>
      Number(
        (
          await db!.query<{ n: string }>('SELECT coalesce(sum(next_offset), 0) AS n FROM projector_offsets')
        )[0].n,
      );
    await waitFor('our topic projected', async () => (await consumed()) === commitOrder.length + 2, {
      timeoutMs: 60_000,
    });
    const flags = await db.query<{ name: string; stale: boolean; archived: boolean }>(
      'SELECT name, stale, archived_at IS NOT NULL AS archived FROM flag_state ORDER BY name',
    );
    expect(flags).toHaveLength(FLAGS);
    expect(flags.every((f) => f.stale && f.archived)).toBe(true);
    expect((await db.query<{ n: string }>('SELECT count(*) AS n FROM event_log'))[0].n).toBe(
      String(commitOrder.length),
    );
    const dead = await db.query<{ reason_code: string; reason: string }>(
      'SELECT reason_code, reason FROM dead_letters ORDER BY "offset"',
    );
    expect(dead.map((d) => d.reason_code)).toEqual(['unsupported-change', 'unsupported-change']);
    expect(dead.map((d) => d.reason.split(' in ')[0])).toEqual([
      'update of event 100',
      'delete of event 100',
    ]);
  });
});

/**
 * The setups docs/debezium.md calls unsupported are refused before anything of them is projected: Debezium's
 * changes fed straight to the projector's topic (keyed by the row's id, so spread over the partitions) with
 * EVENT_FORMAT=debezium, and the same changes read with EVENT_FORMAT=unleash. The projector stops with a
 * reason that names the fix (main.ts exits with it; here, in the process, the refusal is awaited).
 */
describe('Debezium: a misconfigured topic is refused (real Kafka and Postgres)', () => {
  const kafka = testKafka();
  const cleanup: (() => Promise<unknown>)[] = [];
  afterEach(async () => {
    for (const c of cleanup.splice(0).reverse()) await c().catch(() => undefined);
  });

  it.each([
    ['debezium', /straight from Kafka Connect .* source debezium --from/],
    ['unleash', /EVENT_FORMAT is unleash: set EVENT_FORMAT=debezium and .* source debezium --from/],
  ])(
    'EVENT_FORMAT=%s, Debezium changes keyed by row id: refused, nothing projected',
    async (format, said) => {
      const { topic, drop } = await createTestTopic(kafka, `dbz-refused-${format}`, 6);
      cleanup.push(drop);
      await produce(kafka, topic, history());
      const db = await createTestDatabase(`dbz_refused_${format}`);
      cleanup.push(() => db.drop());
      const app = await createProjectorApp(
        loadConfig({
          DATABASE_URL: db.url,
          KAFKA_BROKERS: BROKERS,
          KAFKA_TOPIC: topic,
          KAFKA_GROUP_ID: `projector-${topic}`,
          EVENT_FORMAT: format,
        }),
      );
      app.useLogger(['fatal']);
      cleanup.push(() => app.close());
      const projector = app.get(LiveProjector);
      const refused = new Promise<string>((resolve) => projector.whenRefused(resolve));
      await app.init();
      expect(await refused).toMatch(said);
      expect(projector.failure).toMatch(/^the topic is misconfigured: /);
      // a moment for any batch in flight: still nothing stored, dead-lettered or moved
      await new Promise((r) => setTimeout(r, 1_000));
      const [stored] = await db.query<{ events: string; dead: string; positions: string }>(
        `SELECT (SELECT count(*) FROM event_log) AS events, (SELECT count(*) FROM dead_letters) AS dead,
              (SELECT coalesce(sum(next_offset), 0) FROM projector_offsets) AS positions`,
      );
      expect(stored).toEqual({ events: '0', dead: '0', positions: '0' });
    },
  );
});
