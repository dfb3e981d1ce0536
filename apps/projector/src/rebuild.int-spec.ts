import type { INestApplication } from '@nestjs/common';
import type { Kafka } from 'kafkajs';
import { Client, type PoolClient } from 'pg';
import { loadConfig } from '@flaglens/config';
import { eventKey } from '@flaglens/contract';
import { ActiveVersionPool } from '@flaglens/persistence';
import { EventLogReadModel, makeCheckpoint } from '@flaglens/projections';
import { generateHistory } from '@flaglens/testing/generate-history';
import { allAnswers } from '@flaglens/testing/support/answers';
import { createProjectorApp } from './main';
import { VERSION_SCHEMA_MIGRATIONS, VERSION_SCHEMA_ROUTINES } from '../../../migrations';
import { createTestDatabase, TestDatabase } from '@flaglens/testing/support/test-database';
import {
  BROKERS,
  createTestTopic,
  produce,
  testGroup,
  testKafka,
} from '@flaglens/testing/support/test-kafka';
import { waitFor } from '@flaglens/testing/support/wait-for';
import { runRebuild, type RebuildResult } from '@flaglens/pipeline/rebuild';

const LIVE = testGroup('live'); // the live projector's consumer group, of its own on the broker

const NOW = new Date('2026-11-22T09:01:00Z');

/** Real Kafka and Postgres: a rebuild while the live projector and readers keep running. */
describe('rebuild with zero read downtime', () => {
  let kafka: Kafka;
  let db: TestDatabase;
  let topic: string;
  let dropTopic: () => Promise<void>;
  let live: INestApplication;
  let reads: ActiveVersionPool;
  let meta: Client;

  const history = generateHistory({
    seed: 7,
    projects: 4,
    flagsPerProject: 40,
    events: 6000,
    weeks: 12,
    end: NOW.toISOString(),
  });
  const flags = [...new Set(history.flatMap((e) => (e.featureName ? [e.featureName] : [])))].sort();
  const projects = [...new Set(history.flatMap((e) => (e.project ? [e.project] : [])))].sort();

  const rebuild = (): Promise<RebuildResult> =>
    runRebuild({
      url: db.url,
      kafka,
      topic,
      liveGroupId: LIVE,
      projectionMigrations: VERSION_SCHEMA_MIGRATIONS,
      projectionRoutines: VERSION_SCHEMA_ROUTINES,
      concurrency: 2,
      sessionTimeoutMs: 6000,
      allowUnknownTypes: false,
      maxEventBytes: 1024 * 1024,
      dropOldAfterMs: 500,
    });

  /** Every endpoint's answer for every flag, project and user, as the api builds them. */
  const answers = () =>
    allAnswers(reads, { flags, projects: ['default', ...projects], users: [1, 2, 3, 5, 8], now: NOW });

  async function liveLagZero(): Promise<boolean> {
    const marks = await kafka.admin();
    await marks.connect();
    const hw = await marks.fetchTopicOffsets(topic);
    await marks.disconnect();
    const active = (await meta.query(`SELECT schema_name FROM projection_versions WHERE status = 'active'`))
      .rows[0].schema_name;
    const rows = await meta.query(
      `SELECT partition, next_offset FROM ${active}.projector_offsets WHERE group_id = '${LIVE}' AND topic = $1`,
      [topic],
    );
    const pos = new Map(
      rows.rows.map((r: { partition: number; next_offset: string }) => [r.partition, Number(r.next_offset)]),
    );
    return hw.every((p) => Number(p.high) === (pos.get(p.partition) ?? 0));
  }

  beforeAll(async () => {
    kafka = testKafka();
    db = await createTestDatabase('rebuild');
    ({ topic, drop: dropTopic } = await createTestTopic(kafka, 'rebuild'));
    meta = new Client({ connectionString: db.url });
    await meta.connect();
    reads = new ActiveVersionPool(db.url, 4, 100);
    await produce(
      kafka,
      topic,
      history.map((e) => ({ key: eventKey(e), value: JSON.stringify(e) })),
      1000,
    );
    live = await createProjectorApp(
      loadConfig({
        DATABASE_URL: db.url,
        KAFKA_BROKERS: BROKERS,
        KAFKA_TOPIC: topic,
        KAFKA_GROUP_ID: LIVE,
        KAFKA_SESSION_TIMEOUT_MS: '6000',
      }),
    );
    live.useLogger(['error']);
    await live.init();
    await waitFor('live projector caught up', liveLagZero, { timeoutMs: 90000 });
  });

  afterAll(async () => {
    await live?.close();
    await reads?.close();
    await meta?.end();
    await dropTopic?.();
    await db?.drop();
  });

  it('switches to a rebuilt version whose answers equal the old ones byte for byte; readers never fail or see it half-built', async () => {
    const before = await answers();
    // every index of the old version's tables, the search's (built after the bulk replay) included
    const indexes = async (schema: string) =>
      (
        await meta.query<{ def: string }>(
          `SELECT replace(indexdef, $1 || '.', '') AS def FROM pg_indexes WHERE schemaname = $1 ORDER BY indexname`,
          [schema],
        )
      ).rows.map((r) => r.def);
    const indexesBefore = await indexes('flaglens_v1');
    expect(indexesBefore.some((d) => d.includes('event_log_search_text_trgm_idx'))).toBe(true);
    const watched = flags[3];
    const expectedTotal = JSON.parse(before.get(`events:${watched}`)!).total as number;
    let readsDone = 0;
    let readerError: unknown;
    let stop = false;
    // a reader hammering the api's read path throughout the rebuild and after the drop of the old version,
    // which never looks the active version up itself (as an api that has not yet learned of the switch): its
    // statements on the dropped version are run again on the new one
    const reader = (async () => {
      const events = new EventLogReadModel(reads);
      while (!stop) {
        try {
          const r = await events.eventsOfFlag(watched);
          if (r.total !== expectedTotal)
            throw new Error(`read ${r.total} events of ${watched}, expected ${expectedTotal}`);
          readsDone++;
        } catch (e) {
          readerError = e;
          stop = true;
        }
      }
    })();
    // a checkpoint for reads as of an instant in the old version: dropped with it
    const maker = new Client({ connectionString: db.url, options: '-c search_path=flaglens_v1,public' });
    await maker.connect();
    try {
      expect(await makeCheckpoint(maker as unknown as PoolClient, 1)).not.toBeNull();
    } finally {
      await maker.end();
    }
    const result = await rebuild();
    const readsBeforeDrop = readsDone;
    await waitFor('reads after the drop', async () => readsDone >= readsBeforeDrop + 10 || stop, {
      timeoutMs: 30000,
    });
    stop = true;
    await reader;
    expect(readerError).toBeUndefined();
    expect(readsDone).toBeGreaterThan(10);
    expect(reads.schema).toBe('flaglens_v2');
    expect(result.switched).toBe(true);
    expect(result.previous?.schema).toBe('flaglens_v1');
    expect(result.version.schema).toBe('flaglens_v2');
    expect(await answers()).toEqual(before);
    expect(await indexes('flaglens_v2')).toEqual(indexesBefore);
    // analyzed before the switch (ANALYZE sets last_analyze; the server's autovacuum would set last_autoanalyze)
    const tables = await meta.query<{ relname: string; analyzed: boolean }>(
      `SELECT relname, last_analyze IS NOT NULL AS analyzed FROM pg_stat_user_tables WHERE schemaname = 'flaglens_v2'`,
    );
    expect(tables.rows.length).toBeGreaterThan(10);
    expect(tables.rows.filter((r) => !r.analyzed).map((r) => r.relname)).toEqual([]);
    // the old version is gone, with its checkpoints
    const schemas = await meta.query(
      `SELECT nspname FROM pg_namespace WHERE nspname LIKE 'flaglens_v%' ORDER BY 1`,
    );
    // (the live projector may have made the new version's checkpoints by now: `flaglens_v2_as_of`)
    const names = schemas.rows.map((r: { nspname: string }) => r.nspname);
    expect(names.filter((n: string) => n !== 'flaglens_v2_as_of')).toEqual(['flaglens_v2']);
  });

  it('the live projector keeps going in the new version: events produced during and after a rebuild are all there, once', async () => {
    const extra = generateHistory({
      seed: 99,
      projects: 2,
      flagsPerProject: 10,
      events: 800,
      weeks: 2,
      end: NOW.toISOString(),
      firstId: 100000,
    });
    const half = Math.floor(extra.length / 2);
    const during = produce(
      kafka,
      topic,
      extra.slice(0, half).map((e) => ({ key: eventKey(e), value: JSON.stringify(e) })),
      50,
    );
    const result = await rebuild();
    await during;
    expect(result.switched).toBe(true);
    expect(result.version.schema).toBe('flaglens_v3');
    await produce(
      kafka,
      topic,
      extra.slice(half).map((e) => ({ key: eventKey(e), value: JSON.stringify(e) })),
      200,
    );
    await waitFor('live caught up in v3', liveLagZero, { timeoutMs: 60000 });
    const counts = await meta.query(
      `SELECT count(*)::int AS n, count(DISTINCT id)::int AS d FROM flaglens_v3.event_log`,
    );
    expect(counts.rows[0]).toEqual({ n: history.length + extra.length, d: history.length + extra.length });
  });
});
