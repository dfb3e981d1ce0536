import { join } from 'node:path';
import type { Consumer, Kafka } from 'kafkajs';
import { Registry } from 'prom-client';
import { parseEvent } from '@flaglens/contract';
import { createTestDatabase, type TestDatabase } from '@flaglens/testing/support/test-database';
import { startLocalPostgres, type LocalPostgres } from '@flaglens/testing/support/local-postgres';
import { createTestTopic, testKafka } from '@flaglens/testing/support/test-kafka';
import { waitFor } from '@flaglens/testing/support/wait-for';
import { DbConnector, RELEASE_HEADER, type DbConnectorOptions } from './db-connector';
import { SourceError } from './errors';
import { SourceMetrics } from './source-metrics';
import { SDK_ID_BASE } from './sdk-events';
import { createScratchUnleash, insertEvents, type ScratchUnleash } from '@flaglens/testing/scratch-unleash';

interface Seen {
  id: number;
  key: string;
  value: Record<string, unknown>;
  /** The `flaglens-unleash-release` header, when there is one. */
  release?: string;
}

/** Collects what arrives on the topic, in arrival order per partition. */
async function collect(kafka: Kafka, topic: string): Promise<{ seen: Seen[]; consumer: Consumer }> {
  const seen: Seen[] = [];
  const consumer = kafka.consumer({ groupId: `${topic}.check`, sessionTimeout: 6000 });
  await consumer.connect();
  await consumer.subscribe({ topic, fromBeginning: true });
  await consumer.run({
    eachMessage: async ({ message }) => {
      const value = JSON.parse(message.value!.toString()) as Record<string, unknown>;
      const release = message.headers?.[RELEASE_HEADER]?.toString();
      seen.push({
        id: Number(value.id),
        key: message.key!.toString(),
        value,
        ...(release ? { release } : {}),
      });
    },
  });
  return { seen, consumer };
}

const insertOne = (
  c: { query: ScratchUnleash['client']['query'] },
  feature: string,
  type = 'feature-stale-on',
) =>
  c.query(
    `INSERT INTO events (type, created_by, created_by_user_id, project, feature_name) VALUES ($1, 'admin', 1, 'default', $2) RETURNING id`,
    [type, feature],
  ) as Promise<{ rows: { id: number }[] }>;

describe('source connector (database mode) against a scratch Unleash schema', () => {
  let db: TestDatabase;
  let ownPg: LocalPostgres;
  let unleash: ScratchUnleash;
  let kafka: Kafka;
  let topic: string;
  let dropTopic: () => Promise<void>;
  let consumer: Consumer;
  let seen: Seen[];
  const logs: string[] = [];
  const registry = new Registry();
  const metrics = new SourceMetrics(registry);

  const connector = (extra: Partial<DbConnectorOptions> = {}) =>
    new DbConnector({
      source: 'unleash',
      unleashUrl: unleash.url,
      flaglensUrl: db.url,
      kafka,
      topic,
      once: false,
      pollMs: 20,
      gap: { graceMs: 300, maxWaitMs: 60_000 },
      log: (level, m) => logs.push(`${level} ${m}`),
      metrics,
      ...extra,
    });

  beforeAll(async () => {
    kafka = testKafka();
    db = await createTestDatabase('source');
    // A gap's proof waits for every transaction in progress on the whole server (pg_current_snapshot): the
    // scratch Unleash gets a Postgres cluster of its own, so no transaction of another test or process running
    // at the same time (the tiers run side by side) holds a proof up until it times out
    ownPg = await startLocalPostgres(
      join(__dirname, '..', '..', '..', '.run', `test-source-pg-${process.pid}`),
    );
    unleash = await createScratchUnleash('source', ownPg.url);
    ({ topic, drop: dropTopic } = await createTestTopic(kafka, 'source'));
    ({ seen, consumer } = await collect(kafka, topic));
  });

  afterAll(async () => {
    await consumer?.disconnect();
    await dropTopic?.();
    await unleash?.drop();
    ownPg?.stop();
    await db?.drop();
  });

  it('backfills from the first row in the wire shape, keyed as the contract says, then stops with --once', async () => {
    await insertEvents(unleash.client, 1200, { flags: 100 });
    // a row the contract rejects (unknown type) is produced like any other
    await unleash.client.query(
      `INSERT INTO events (type, created_by, data, tags) VALUES ('made-up-type', 'x', '{"a":1}', NULL)`,
    );
    const r = await connector({ once: true, batchSize: 500 }).run();
    expect(r.position.hwm).toBe(1201);
    await waitFor('1201 messages', async () => seen.length >= 1201);
    const first = seen.find((s) => s.id === 1)!;
    expect(Object.keys(first.value)).toEqual([
      'id',
      'type',
      'createdBy',
      'createdAt',
      'createdByUserId',
      'data',
      'preData',
      'tags',
      'featureName',
      'project',
      'environment',
    ]);
    expect(first.key).toBe('gen-1');
    expect(first.value.createdAt).toBe('2026-01-01T00:00:00.010Z');
    expect(parseEvent(JSON.stringify(first.value))).toMatchObject({ ok: true });
    const odd = seen.find((s) => s.id === 1201)!;
    expect(odd.key).toBe('instance');
    expect(odd.value.tags).toEqual([]);
    expect(parseEvent(JSON.stringify(odd.value))).toMatchObject({ ok: false, code: 'unknown-type' });
    // per key, in id order
    const byKey = new Map<string, number[]>();
    for (const s of seen) byKey.set(s.key, [...(byKey.get(s.key) ?? []), s.id]);
    for (const ids of byKey.values()) expect(ids).toEqual([...ids].sort((a, b) => a - b));
    const stored = await db.query<{ position: { hwm: number }; status: { state: string } }>(
      `SELECT position, status FROM public.source_positions WHERE source = 'unleash'`,
    );
    expect(stored[0].position.hwm).toBe(1201);
    expect(stored[0].status.state).toBe('done');
  });

  it('two transactions committing out of id order: the lower id is produced when it commits, nothing skipped', async () => {
    const before = seen.length;
    const abort = new AbortController();
    const run = connector({ signal: abort.signal }).run();
    const t1 = await unleash.connect();
    const t2 = await unleash.connect();
    try {
      await t1.query('BEGIN');
      const low = (await insertOne(t1, 'ooo-flag', 'feature-stale-on')).rows[0].id;
      await t2.query('BEGIN');
      const high = (await insertOne(t2, 'ooo-flag', 'feature-stale-off')).rows[0].id;
      expect(high).toBe(low + 1);
      await t2.query('COMMIT');
      await waitFor('the higher id produced', async () => seen.some((s) => s.id === high));
      // the lower id is still uncommitted: a gap, held open while its transaction runs
      await new Promise((r) => setTimeout(r, 1000));
      expect(seen.some((s) => s.id === low)).toBe(false);
      const gaps = await db.query<{ gaps: unknown[] }>(
        `SELECT position->'gaps' AS gaps FROM public.source_positions WHERE source = 'unleash'`,
      );
      expect(gaps[0].gaps).toHaveLength(1);
      await t1.query('COMMIT');
      await waitFor('the lower id produced after it committed', async () => seen.some((s) => s.id === low));
      const order = seen.slice(before).map((s) => s.id);
      expect(order.indexOf(high)).toBeLessThan(order.indexOf(low)); // commit order
      // a rolled-back id: the gap is proven abandoned (its transaction ended) and closes
      await t1.query('BEGIN');
      const lost = (await insertOne(t1, 'ooo-flag')).rows[0].id;
      const next = (await insertOne(unleash.client, 'ooo-flag')).rows[0].id;
      await waitFor('the next id produced', async () => seen.some((s) => s.id === next));
      await t1.query('ROLLBACK');
      await waitFor('the gap closed as abandoned', async () => {
        const [p] = await db.query<{ gaps: unknown[] }>(
          `SELECT position->'gaps' AS gaps FROM public.source_positions WHERE source = 'unleash'`,
        );
        return p.gaps.length === 0;
      });
      expect(seen.some((s) => s.id === lost)).toBe(false);
      expect(await registry.getSingleMetricAsString('flaglens_source_gaps_closed_total')).toMatch(
        /reason="abandoned"} [1-9]/,
      );
      // every row of the table arrived exactly once
      const ids = (await unleash.client.query<{ id: number }>('SELECT id FROM events ORDER BY id')).rows.map(
        (r) => r.id,
      );
      const got = seen
        .filter((s) => s.id < SDK_ID_BASE)
        .map((s) => s.id)
        .sort((a, b) => a - b);
      expect(got).toEqual(ids);
    } finally {
      abort.abort();
      await run;
      await t1.end();
      await t2.end();
    }
  });

  it('follows an Unleash upgraded to 7 in place: its release, groupType/groupId, old-dated rows with new ids', async () => {
    const c = unleash.client;
    const before = seen.length;
    // 6.x, as far as its migrations tell
    await c.query(
      `CREATE TABLE migrations (id serial PRIMARY KEY, name varchar(255) NOT NULL, run_on timestamp NOT NULL)`,
    );
    await c.query(
      `INSERT INTO migrations (name, run_on) VALUES ('/20250506074807-feature-link-table', now())`,
    );
    const abort = new AbortController();
    const run = connector({ signal: abort.signal }).run();
    try {
      const six = (await insertOne(c, 'upgrade-flag')).rows[0].id;
      await waitFor('the 6.x row', async () => seen.some((s) => s.id === six));
      expect(seen.find((s) => s.id === six)!.release).toBe('6');
      // 7.0's migrations while the connector follows: the group columns, then user-created rows with a
      // user's old created_at and new (higher) ids
      await c.query('BEGIN');
      await c.query(
        `ALTER TABLE events ADD COLUMN IF NOT EXISTS group_type TEXT, ADD COLUMN IF NOT EXISTS group_id TEXT`,
      );
      await c.query(`INSERT INTO migrations (name, run_on) VALUES
        ('/20250630114145-add-transaction-context-to-events', now()), ('/20250708173000-amend-users-created-events', now())`);
      const amended = (
        await c.query<{ id: number }>(
          `INSERT INTO events (created_at, created_by, type, data) VALUES
             ('2020-03-02T10:00:00Z', 'unleash_system_user', 'user-created', '{"id":7,"email":"old@example.com"}'),
             ('2019-01-01T00:00:00Z', 'unleash_system_user', 'user-created', '{"id":8,"email":"older@example.com"}')
           RETURNING id`,
        )
      ).rows.map((r) => r.id);
      await c.query('COMMIT');
      const grouped = (
        await c.query<{ id: number }>(
          `INSERT INTO events (type, created_by, project, feature_name, group_type, group_id)
           VALUES ('feature-stale-on', 'admin', 'default', 'upgrade-flag', 'transaction', '01K0TRANSACTION'),
                  ('feature-stale-off', 'admin', 'default', 'upgrade-flag', '', NULL) RETURNING id`,
        )
      ).rows.map((r) => r.id);
      await waitFor('the rows written by 7', async () =>
        grouped.every((id) => seen.some((s) => s.id === id)),
      );
      for (const id of amended) {
        const s = seen.find((x) => x.id === id)!;
        expect(s.value.type).toBe('user-created');
        expect(s.release).toBe('7');
      }
      expect(seen.find((s) => s.id === amended[1])!.value.createdAt).toBe('2019-01-01T00:00:00.000Z');
      const [withGroup, emptyGroup] = grouped.map((id) => seen.find((s) => s.id === id)!);
      expect(Object.keys(withGroup.value).slice(-3)).toEqual(['environment', 'groupType', 'groupId']);
      expect(withGroup.value).toMatchObject({ groupType: 'transaction', groupId: '01K0TRANSACTION' });
      expect(parseEvent(JSON.stringify(withGroup.value))).toMatchObject({ ok: true });
      expect(Object.keys(emptyGroup.value)).not.toContain('groupType');
      expect(withGroup.release).toBe('7');
      // 8's first migration
      await c.query(
        `INSERT INTO migrations (name, run_on) VALUES ('/20260601105104-add-sunset-feature-type', now())`,
      );
      const eight = (await insertOne(c, 'upgrade-flag')).rows[0].id;
      await waitFor('the row written by 8', async () => seen.some((s) => s.id === eight));
      expect(seen.find((s) => s.id === eight)!.release).toBe('8');
      // nothing lost, nothing twice
      const ids = (
        await c.query<{ id: number }>('SELECT id FROM events WHERE id > $1 ORDER BY id', [six - 1])
      ).rows.map((r) => r.id);
      const got = seen
        .slice(before)
        .filter((s) => s.id < SDK_ID_BASE)
        .map((s) => s.id)
        .sort((a, b) => a - b);
      expect(got).toEqual(ids);
      // the position (with the release) is stored after the row is produced: wait for it, do not race it
      await waitFor('the release 8 stored with the position', async () => {
        const [stored] = await db.query<{ status: { release: string } }>(
          `SELECT status FROM public.source_positions WHERE source = 'unleash'`,
        );
        return stored?.status.release === '8';
      });
    } finally {
      abort.abort();
      await run;
      await c.query(`DROP TABLE migrations`);
      await c.query(`ALTER TABLE events DROP COLUMN group_type, DROP COLUMN group_id`);
    }
  });

  it('a restart resumes from the stored position (nothing sent twice after a clean stop)', async () => {
    const before = seen.length;
    const { rows } = await insertOne(unleash.client, 'resume-flag');
    await connector({ once: true }).run();
    await waitFor('the new row', async () => seen.some((s) => s.id === rows[0].id));
    await new Promise((r) => setTimeout(r, 500));
    expect(seen.slice(before).map((s) => s.id)).toEqual([rows[0].id]);
  });

  it('carries SDK usage: sightings and registrations at once, closed hours once, the open hour not yet', async () => {
    const c = unleash.client;
    await c.query(
      `INSERT INTO client_applications (app_name, strategies, seen_at) VALUES ('web', '["default"]', now())`,
    );
    await c.query(`INSERT INTO client_applications_usage VALUES ('web', 'default', 'development')`);
    await c.query(
      `INSERT INTO client_instances (app_name, instance_id, environment, sdk_version) VALUES ('web', 'i-1', 'development', 'unleash-client-node:6.1.0')`,
    );
    await c.query(`INSERT INTO last_seen_at_metrics VALUES ('gen-1', 'development', now())`);
    await c.query(`INSERT INTO client_metrics_env VALUES
        ('gen-1', 'web', 'development', date_trunc('hour', now()) - interval '3 hours', 10, 2),
        ('gen-2', 'web', 'development', date_trunc('hour', now()) - interval '3 hours', 1, 0),
        ('gen-1', 'web', 'development', date_trunc('hour', now()), 5, 5)`);
    await c.query(`INSERT INTO client_metrics_env_variants VALUES
        ('gen-1', 'web', 'development', date_trunc('hour', now()) - interval '3 hours', 'blue', 7)`);
    const before = seen.length;
    await connector({ once: true }).run();
    await waitFor('4 SDK events', async () => seen.slice(before).length >= 4);
    const sdk = seen.slice(before);
    expect(sdk.every((s) => s.id >= SDK_ID_BASE && s.key === 'instance')).toBe(true);
    expect(sdk.map((s) => s.value.type).sort()).toEqual([
      'client-metrics',
      'client-metrics',
      'client-register',
      'client-register',
    ]);
    const hour = sdk.find(
      (s) => (s.value.data as { appName: string }).appName === 'web' && s.value.type === 'client-metrics',
    )!;
    expect((hour.value.data as { bucket: { toggles: unknown } }).bucket.toggles).toEqual({
      'gen-1': { yes: 10, no: 2, variants: { blue: 7 } },
      'gen-2': { yes: 1, no: 0 },
    });
    for (const s of sdk) expect(parseEvent(JSON.stringify(s.value))).toMatchObject({ ok: true });
    // read again (a restart): the same ids, so the projector stores each once; the done hour is not re-read
    const again = seen.length;
    await db.query(`UPDATE public.source_positions SET position = position - 'sdk'`);
    await connector({ once: true }).run();
    await waitFor('the same 4 again', async () => seen.slice(again).length >= 4);
    expect(
      seen
        .slice(again)
        .map((s) => s.id)
        .sort(),
    ).toEqual(sdk.map((s) => s.id).sort());
  });

  it('a read-only role with the documented grants is enough (docs/source-connector.md)', async () => {
    const role = `flaglens_ro_${Math.random().toString(36).slice(2, 8)}`;
    const c = unleash.client;
    await c.query(`CREATE ROLE ${role} LOGIN`);
    try {
      await c.query(`GRANT CONNECT ON DATABASE ${unleash.name} TO ${role}`);
      await c.query(`GRANT USAGE ON SCHEMA public TO ${role}`);
      await c.query(`GRANT SELECT ON events TO ${role}`);
      await c.query(`GRANT SELECT ON last_seen_at_metrics, client_applications, client_applications_usage,
        client_instances, client_metrics_env, client_metrics_env_variants, client_metrics_env_daily,
        client_metrics_env_variants_daily TO ${role}`);
      const url = new URL(unleash.url);
      url.username = role;
      const warnings: string[] = [];
      const r = await connector({
        source: 'read-only',
        unleashUrl: url.toString(),
        once: true,
        log: (level, m) => level !== 'info' && warnings.push(m),
      }).run();
      const [{ n }] = (await c.query<{ n: number }>('SELECT max(id) AS n FROM events')).rows;
      expect(r.position.hwm).toBe(n);
      expect(r.sdkProduced).toBeGreaterThan(0);
      expect(warnings).toEqual([]);
    } finally {
      await c.query(`REVOKE ALL ON ALL TABLES IN SCHEMA public FROM ${role}`);
      await c.query(`REVOKE ALL ON SCHEMA public FROM ${role}`);
      await c.query(`REVOKE ALL ON DATABASE ${unleash.name} FROM ${role}`);
      await c.query(`DROP ROLE ${role}`);
    }
  });

  it('is not Unleash (no events table): a SourceError saying so', async () => {
    await expect(
      new DbConnector({
        source: 'other',
        unleashUrl: db.url,
        flaglensUrl: db.url,
        kafka,
        topic,
        once: true,
        log: () => undefined,
      }).run(),
    ).rejects.toThrow(SourceError);
  });
});

describe("source connector (database mode) against Unleash 8.2.0's schema", () => {
  let db: TestDatabase;
  let unleash: ScratchUnleash;
  let kafka: Kafka;
  let topic: string;
  let dropTopic: () => Promise<void>;
  let consumer: Consumer;
  let seen: Seen[];

  beforeAll(async () => {
    kafka = testKafka();
    db = await createTestDatabase('source_8');
    unleash = await createScratchUnleash('source_8', undefined, { release: '8.2.0' });
    ({ topic, drop: dropTopic } = await createTestTopic(kafka, 'source-8'));
    ({ seen, consumer } = await collect(kafka, topic));
  });

  afterAll(async () => {
    await consumer?.disconnect();
    await dropTopic?.();
    await unleash?.drop();
    await db?.drop();
  });

  it('backfills as release 8 (its migrations), groupType/groupId as 8.x writes them, omitted when null', async () => {
    await insertEvents(unleash.client, 40, { flags: 10 });
    const logs: string[] = [];
    const r = await new DbConnector({
      source: 'unleash',
      unleashUrl: unleash.url,
      flaglensUrl: db.url,
      kafka,
      topic,
      once: true,
      log: (level, m) => logs.push(`${level} ${m}`),
    }).run();
    expect(r.produced).toBe(40);
    await waitFor('40 messages', async () => seen.length >= 40);
    expect(logs).toContain('info Unleash release 8 (from its migrations)');
    expect(seen.every((s) => s.release === '8')).toBe(true);
    const byId = new Map(seen.map((s) => [s.id, s.value]));
    // 4 consecutive events share a transaction; every 5th transaction's events have none
    expect(byId.get(1)).toMatchObject({ groupType: 'transaction' });
    expect(byId.get(1)!.groupId).toMatch(/^[0-9A-HJKMNP-TV-Z]{26}$/);
    expect(byId.get(4)!.groupId).toBe(byId.get(1)!.groupId);
    expect(byId.get(5)!.groupId).not.toBe(byId.get(1)!.groupId);
    expect(Object.keys(byId.get(17)!)).not.toContain('groupType');
    expect(Object.keys(byId.get(17)!)).not.toContain('groupId');
    for (const s of seen) expect(parseEvent(JSON.stringify(s.value))).toMatchObject({ ok: true });
  });
});
