import type { INestApplication } from '@nestjs/common';
import type { Kafka } from 'kafkajs';
import { loadConfig } from '@flaglens/config';
import { createTestDatabase, TestDatabase } from '@flaglens/testing/support/test-database';
import {
  BROKERS,
  createTestTopic,
  produce,
  testGroup,
  testKafka,
} from '@flaglens/testing/support/test-kafka';
import { flagEvent, toMessage } from '@flaglens/testing/support/event-factory';
import { startApp, stopApp } from '@flaglens/testing/support/processes';
import { freePort, httpGet } from '@flaglens/testing/support/http';
import { Pool } from 'pg';
import { EventLogReadModel } from '@flaglens/projections';
import { waitFor } from '@flaglens/testing/support/wait-for';
import { createProjectorApp } from './main';

// consumer groups of their own (another run of this file may use the same broker)
const G_10K = testGroup('g-10k');
const G_KILL = testGroup('g-kill');
const G_ONE = testGroup('g-one');

/** Real Kafka broker, real Postgres: the projector's exactly-once path. */
describe('projector (real Kafka and Postgres)', () => {
  let kafka: Kafka;
  let db: TestDatabase;
  let topic: string;
  let dropTopic: () => Promise<void>;
  const apps: INestApplication[] = [];

  const config = (group: string, extra: Record<string, string> = {}) =>
    loadConfig({
      DATABASE_URL: db.url,
      KAFKA_BROKERS: BROKERS,
      KAFKA_TOPIC: topic,
      KAFKA_GROUP_ID: group,
      LOG_LEVEL: 'warn',
      ...extra,
    });

  async function startProjector(
    group: string,
    extra: Record<string, string> = {},
    port?: number,
  ): Promise<INestApplication> {
    const app = await createProjectorApp(config(group, extra));
    app.useLogger(['error']);
    if (port === undefined) await app.init();
    else await app.listen(port, '127.0.0.1');
    apps.push(app);
    return app;
  }

  async function stored(): Promise<number> {
    return Number((await db.query<{ n: string }>('SELECT count(*) AS n FROM event_log'))[0].n);
  }

  async function lagZero(group: string): Promise<boolean> {
    const admin = kafka.admin();
    await admin.connect();
    const hw = await admin.fetchTopicOffsets(topic);
    await admin.disconnect();
    const rows = await db.query<{ partition: number; next_offset: string }>(
      'SELECT partition, next_offset FROM projector_offsets WHERE group_id = $1 AND topic = $2',
      [group, topic],
    );
    const pos = new Map(rows.map((r) => [r.partition, Number(r.next_offset)]));
    return hw.every((p) => Number(p.high) === 0 || pos.get(p.partition) === Number(p.high));
  }

  beforeEach(async () => {
    kafka = testKafka();
    db = await createTestDatabase('projector');
    ({ topic, drop: dropTopic } = await createTestTopic(kafka, 'projector'));
  });

  afterEach(async () => {
    for (const app of apps.splice(0)) await app.close();
    await dropTopic();
    await db.drop();
  });

  it('projects 10,000 events over many flags, each flag complete, in order, with its total', async () => {
    const flags = Array.from({ length: 200 }, (_, i) => `flag-${i}`);
    const events = Array.from({ length: 10000 }, (_, i) => flagEvent(i + 1, flags[i % flags.length], i));
    await produce(kafka, topic, events.map(toMessage));
    // `on`: the projector keeps the tables whatever the server's autovacuum does (checked at the end)
    await startProjector(G_10K, { PROJECTOR_TABLE_MAINTENANCE: 'on' });
    await waitFor('all 10,000 stored', async () => (await stored()) === 10000, { timeoutMs: 90000 });
    await waitFor('lag 0', () => lagZero(G_10K));

    for (const flag of ['flag-0', 'flag-77', 'flag-199']) {
      const expected = events
        .filter((e) => e.featureName === flag)
        .sort((a, b) => (a.createdAt < b.createdAt ? 1 : a.createdAt > b.createdAt ? -1 : b.id - a.id));
      const rows = await db.query<{ body: string }>(
        'SELECT body FROM event_log WHERE feature_name = $1 ORDER BY created_at DESC, id DESC',
        [flag],
      );
      expect(rows.map((r) => JSON.parse(r.body).id)).toEqual(expected.map((e) => e.id));
      expect(JSON.parse(rows[0].body)).toEqual({ ...expected[0] });
    }
    const perFlag = await db.query<{ n: string }>(
      'SELECT count(*) AS n FROM event_log GROUP BY feature_name',
    );
    expect(perFlag).toHaveLength(200);
    expect(perFlag.every((r) => Number(r.n) === 50)).toBe(true);
    // Kafka's committed offsets follow Postgres (shortly after each batch), so standard lag tools see the
    // progress
    const admin = kafka.admin();
    await admin.connect();
    const hw = await admin.fetchTopicOffsets(topic);
    const caughtUp = async () => {
      const committed = await admin.fetchOffsets({ groupId: G_10K, topics: [topic] });
      return committed[0].partitions.every(
        (p) => p.offset === hw.find((h) => h.partition === p.partition)!.high,
      );
    };
    await waitFor("Kafka's committed offsets at the high-water marks", caughtUp, { timeoutMs: 10000 });
    await admin.disconnect();
    // the log was analyzed and vacuumed by the projector (the server's autovacuum sets last_auto* instead)
    await waitFor(
      'the event log analyzed and vacuumed by the projector',
      async () =>
        (
          await db.query<{ kept: boolean }>(
            `SELECT last_analyze IS NOT NULL AND last_vacuum IS NOT NULL AS kept FROM pg_stat_user_tables
              WHERE schemaname = 'flaglens_v1' AND relname = 'event_log'`,
          )
        )[0]?.kept,
      { timeoutMs: 60000 },
    );
  });

  it('applies a batch that failed (not a data error) again from its stored position, once, with nothing new produced', async () => {
    const events = Array.from({ length: 300 }, (_, i) => flagEvent(i + 1, `fail-flag-${i % 10}`, i));
    await produce(kafka, topic, events.map(toMessage));
    // every batch's transaction fails until the table every batch writes is back (42P01: neither transient
    // nor bad data: nothing is dead-lettered)
    await db.query('ALTER TABLE event_counts RENAME TO event_counts_away');
    await startProjector('g-fail');
    await new Promise((r) => setTimeout(r, 4000));
    expect(await stored()).toBe(0);
    await db.query('ALTER TABLE event_counts_away RENAME TO event_counts');
    await waitFor('all 300 stored', async () => (await stored()) === 300, { timeoutMs: 90000 });
    await waitFor('lag 0', () => lagZero('g-fail'), { timeoutMs: 30000 });
    // counted once: a failed attempt left nothing behind
    const activity = await db.query<{ n: string }>(
      `SELECT sum(n) AS n FROM project_activity_daily WHERE project = 'default'`,
    );
    expect(Number(activity[0].n)).toBe(300);
    expect(await db.query('SELECT * FROM dead_letters')).toHaveLength(0);
  });

  it('stores an event id sent twice (two offsets) once', async () => {
    const e = flagEvent(42, 'dup-flag', 1);
    await produce(kafka, topic, [toMessage(e), toMessage(flagEvent(43, 'dup-flag', 2)), toMessage(e)]);
    // and once more in a later batch, after the first copy is committed
    await startProjector('g-dup');
    await waitFor('2 stored', async () => (await stored()) === 2);
    await produce(kafka, topic, [toMessage(e), toMessage(flagEvent(44, 'dup-flag', 3))]);
    await waitFor('3 stored', async () => (await stored()) === 3);
    await waitFor('lag 0', () => lagZero('g-dup'));
    expect(await stored()).toBe(3);
    const ids = await db.query<{ id: string }>('SELECT id FROM event_log ORDER BY id');
    expect(ids.map((r) => Number(r.id))).toEqual([42, 43, 44]);
    expect(await db.query('SELECT * FROM dead_letters')).toHaveLength(0);
  });

  it('dead-letters poison messages with their reason and keeps projecting their neighbours', async () => {
    const key = 'poison-flag';
    const good = (id: number) => ({ key, value: JSON.stringify(flagEvent(id, key, id)) });
    const poison: { value: string | Buffer | null; code: string }[] = [
      { value: '{"id": 1, "type": ', code: 'malformed-json' },
      { value: JSON.stringify({ ...flagEvent(900, key), createdBy: undefined }), code: 'invalid-field' },
      {
        value: JSON.stringify({ ...flagEvent(901, key), tags: [{ value: 'x', type: 'simple' }] }),
        code: 'invalid-field',
      },
      { value: JSON.stringify({ ...flagEvent(902, key), id: 0 }), code: 'invalid-field' },
      { value: JSON.stringify({ ...flagEvent(903, key), type: 'feature-teleported' }), code: 'unknown-type' },
      {
        value: JSON.stringify({ ...flagEvent(904, key), data: { blob: 'x'.repeat(2 * 1024 * 1024) } }),
        code: 'too-large',
      },
      { value: Buffer.alloc(0), code: 'empty' },
      { value: null, code: 'empty' },
    ];
    const messages = [good(1)];
    poison.forEach((p, i) => messages.push({ key, value: p.value as string }, good(i + 2)));
    await produce(kafka, topic, messages, 4);
    // strict: an unknown type dead-lettered (the default stores it: the next test)
    await startProjector('g-poison', { ACCEPT_UNKNOWN_EVENT_TYPES: 'false' });
    await waitFor('lag 0', () => lagZero('g-poison'), { timeoutMs: 60000 });

    expect(await stored()).toBe(poison.length + 1);
    const dead = await db.query<{
      offset: string;
      reason_code: string;
      reason: string;
      message_value: Buffer | null;
    }>('SELECT "offset", reason_code, reason, message_value FROM dead_letters ORDER BY "offset"');
    expect(dead.map((d) => d.reason_code)).toEqual(poison.map((p) => p.code));
    expect(dead.every((d) => d.reason.length > 0)).toBe(true);
    expect(dead[0].message_value?.toString()).toBe('{"id": 1, "type": ');
    expect(dead[1].reason).toMatch(/createdBy/);
    expect(dead[2].reason).toMatch(/tags/);
    expect(dead[3].reason).toMatch(/id/);
  });

  it('stores, answers and counts an event of a type it does not know (a newer Unleash), by default', async () => {
    const key = 'newer-flag';
    const newer = {
      ...flagEvent(2, key, 2),
      type: 'flag-teleported',
      groupType: 'transaction',
      groupId: '01K0',
    };
    await produce(kafka, topic, [
      toMessage(flagEvent(1, key, 1)),
      { ...toMessage(newer), headers: { 'flaglens-unleash-release': '8' } },
      // a replay of the same event: stored and counted once
      toMessage(newer),
      toMessage(flagEvent(3, key, 3)),
    ]);
    const port = await freePort();
    await startProjector('g-newer', {}, port);
    await waitFor('lag 0', () => lagZero('g-newer'), { timeoutMs: 60000 });
    expect(await stored()).toBe(3);
    expect(await db.query('SELECT * FROM dead_letters')).toHaveLength(0);
    const [row] = await db.query<{ known_type: boolean; group_type: string; group_id: string }>(
      'SELECT known_type, group_type, group_id FROM event_log WHERE id = 2',
    );
    expect(row).toEqual({ known_type: false, group_type: 'transaction', group_id: '01K0' });
    // answered in the flag's event list like any other
    const schema = (await db.query<{ s: string }>('SELECT current_schema() AS s'))[0].s;
    const reads = new Pool({ connectionString: db.url, max: 1, options: `-c search_path=${schema},public` });
    try {
      const model = new EventLogReadModel({ pool: () => reads });
      const list = JSON.parse(`[${(await model.eventsOfFlag(key)).eventsJson}]`) as Record<string, unknown>[];
      expect(list.map((e) => e.id)).toEqual([3, 2, 1]);
      expect(list[1]).toMatchObject({ type: 'flag-teleported', groupType: 'transaction', groupId: '01K0' });
      expect(await model.unleashRelease()).toEqual({ release: '8', answeringAs: '8' });
    } finally {
      await reads.end();
    }
    // counted by type
    const text = (await httpGet(port, '/metrics')).text;
    expect(text).toMatch(
      /^flaglens_projector_unknown_event_types_total\{[^}]*type="flag-teleported"[^}]*\} 1$/m,
    );
  });

  it('keeps every partition moving past valid-looking events that used to stop it', async () => {
    const deep = '{"a":'.repeat(20_000) + '1' + '}'.repeat(20_000);
    const strategy = {
      ...flagEvent(500, 'deep-flag'),
      type: 'default-strategy-updated',
      featureName: null,
      environment: 'production',
      data: '@',
    };
    const metrics = {
      id: 501,
      type: 'client-metrics',
      createdBy: 'sdk',
      createdAt: '2026-01-01T00:00:00.000Z',
      data: {
        appName: 'web',
        bucket: {
          start: '2026-01-01T00:00:00Z',
          stop: '2026-01-01T00:01:00Z',
          toggles: { ['t'.repeat(4000)]: { yes: 1, no: 0 } },
        },
      },
    };
    const lone = { ...flagEvent(502, 'lone'), featureName: 'lone-\ud800' };
    const messages = [
      // a 20,000-level default strategy crashed the consumer (RangeError in JSON.stringify)
      { key: 'default', value: JSON.stringify(strategy).replace('"@"', deep) },
      // a 4,000-character flag name in SDK metrics overflowed a btree row (54000), retried forever
      { key: 'instance', value: JSON.stringify(metrics) },
      // a lone surrogate would be stored as U+FFFD, merging it with another flag
      { key: 'lone', value: JSON.stringify(lone) },
    ];
    const good = Array.from({ length: 60 }, (_, i) => flagEvent(i + 1, `moving-${i % 6}`, i));
    await produce(kafka, topic, [
      ...good.slice(0, 30).map(toMessage),
      ...messages,
      ...good.slice(30).map(toMessage),
    ]);
    await startProjector('g-extreme');
    await waitFor('lag 0', () => lagZero('g-extreme'), { timeoutMs: 60000 });
    expect(await stored()).toBe(60);
    // one dead letter per bad message: by message, since a producer that retries a send the broker took
    // (a slow ack on a loaded machine) puts the same messages on the topic twice, at other offsets; the
    // positions themselves are unique (dead_letters_position_uq)
    const dead = await db.query<{ reason_code: string; reason: string }>(
      `SELECT DISTINCT ON (message_value) reason_code, reason FROM dead_letters
        ORDER BY message_value, reason_code`,
    );
    expect(dead.map((d) => d.reason_code).sort()).toEqual(['invalid-field', 'invalid-field', 'too-deep']);
    expect(dead.map((d) => d.reason).join('\n')).toMatch(/each key of toggles must be 1 to 255 characters/);
    expect(dead.map((d) => d.reason).join('\n')).toMatch(/featureName must be well-formed Unicode/);
    // still consuming: a later event arrives
    await produce(kafka, topic, [toMessage(flagEvent(99, 'after', 99))]);
    await waitFor('the next event', async () => (await stored()) === 61, { timeoutMs: 30000 });
  });

  it('loses nothing and stores nothing twice when the projector is SIGKILLed mid-stream', async () => {
    const total = 30000;
    const events = Array.from({ length: total }, (_, i) => flagEvent(i + 1, `kill-${i % 97}`, i));
    await produce(kafka, topic, events.map(toMessage), 2000);
    const env = {
      DATABASE_URL: db.url,
      KAFKA_BROKERS: BROKERS,
      KAFKA_TOPIC: topic,
      KAFKA_GROUP_ID: G_KILL,
      KAFKA_SESSION_TIMEOUT_MS: '6000',
      PROJECTOR_PORT: String(await freePort()),
    };
    const logs: string[] = [];
    for (let round = 0; round < 3; round++) {
      const before = await stored();
      const child = startApp('projector', env, logs);
      child.once('exit', (code) => code !== null && code !== 0 && logs.push(`exited with ${code}`));
      // kill it once it has made progress but before it is done
      await waitFor(
        'progress',
        async () => {
          if (child.exitCode !== null) throw new Error(`projector exited: ${logs.join('').slice(-2000)}`);
          return (await stored()) > before || (await stored()) === total;
        },
        { timeoutMs: 90000, intervalMs: 20 },
      );
      await stopApp(child, 'SIGKILL');
      if ((await stored()) === total) break;
    }
    const child = startApp('projector', env);
    try {
      await waitFor('all stored', async () => (await stored()) === total, { timeoutMs: 120000 });
      await waitFor('lag 0', () => lagZero(G_KILL), { timeoutMs: 60000 });
    } finally {
      await stopApp(child);
    }
    const [{ n, d }] = await db.query<{ n: string; d: string }>(
      'SELECT count(*) AS n, count(DISTINCT id) AS d FROM event_log',
    );
    expect(Number(n)).toBe(total);
    expect(Number(d)).toBe(total);
    // offsets consistent: every stored event's source offset is below its partition's stored position
    const bad = await db.query(
      `SELECT e.id FROM event_log e JOIN projector_offsets o ON o.group_id = '${G_KILL}' AND o.topic = e.source_topic AND o.partition = e.source_partition
        WHERE e.source_offset >= o.next_offset`,
    );
    expect(bad).toHaveLength(0);
  });

  it('gives the same tables with two projectors in one group, one stopped during the run, as with one', async () => {
    const events = Array.from({ length: 20000 }, (_, i) => flagEvent(i + 1, `two-${i % 50}`, i));
    await produce(kafka, topic, events.slice(0, 10000).map(toMessage), 2000);
    await startProjector('g-two');
    const second = await startProjector('g-two');
    await produce(kafka, topic, events.slice(10000).map(toMessage), 2000);
    await waitFor('some progress', async () => (await stored()) > 5000, { timeoutMs: 60000, intervalMs: 20 });
    await second.close();
    apps.splice(apps.indexOf(second), 1);
    await waitFor('all stored', async () => (await stored()) === 20000, { timeoutMs: 90000 });
    await waitFor('lag 0', () => lagZero('g-two'));
    const twoProjectors = await db.query<{ h: string }>(
      `SELECT md5(string_agg(id || ':' || body, ',' ORDER BY id)) AS h FROM event_log`,
    );
    const expectedHash = await db.query<{ h: string }>(
      `SELECT md5(string_agg(id || ':' || body, ',' ORDER BY id)) AS h FROM event_log WHERE id <= 20000`,
    );
    expect(twoProjectors[0].h).toBe(expectedHash[0].h);

    // one projector over the same topic into a fresh database gives the identical table
    const single = await createTestDatabase('single');
    try {
      const app = await createProjectorApp(
        loadConfig({
          DATABASE_URL: single.url,
          KAFKA_BROKERS: BROKERS,
          KAFKA_TOPIC: topic,
          KAFKA_GROUP_ID: G_ONE,
        }),
      );
      app.useLogger(['error']);
      await app.init();
      apps.push(app);
      await waitFor(
        'single stored all',
        async () =>
          Number((await single.query<{ n: string }>('SELECT count(*) AS n FROM event_log'))[0].n) === 20000,
        { timeoutMs: 90000 },
      );
      const h = await single.query<{ h: string }>(
        `SELECT md5(string_agg(id || ':' || body, ',' ORDER BY id)) AS h FROM event_log`,
      );
      expect(h[0].h).toBe(twoProjectors[0].h);
    } finally {
      for (const app of apps.splice(0)) await app.close();
      await single.drop();
    }
  });
});
