import type { INestApplication } from '@nestjs/common';
import type { Kafka } from 'kafkajs';
import { Client } from 'pg';
import { loadConfig } from '@flaglens/config';
import { METRIC } from '@flaglens/observability';
import { createTestDatabase, TestDatabase } from '@flaglens/testing/support/test-database';
import {
  BROKERS,
  createTestTopic,
  produce,
  testGroup,
  testKafka,
} from '@flaglens/testing/support/test-kafka';
import { flagEvent, toMessage } from '@flaglens/testing/support/event-factory';
import { freePort, httpGet } from '@flaglens/testing/support/http';
import { tcpProxy } from '@flaglens/testing/support/tcp-proxy';
import { waitFor } from '@flaglens/testing/support/wait-for';
import { createProjectorApp } from './main';

/** Metrics and readiness of a running projector (real Kafka and Postgres). */
describe('projector operations: lag gauge and readiness', () => {
  let kafka: Kafka;
  let db: TestDatabase;
  let topic: string;
  let dropTopic: () => Promise<void>;
  let app: INestApplication | undefined;
  let port: number;
  const GROUP = testGroup('g-ops');
  let nextId = 1;

  async function startProjector(extra: Record<string, string> = {}): Promise<void> {
    port = await freePort();
    app = await createProjectorApp(
      loadConfig({
        DATABASE_URL: db.url,
        KAFKA_BROKERS: BROKERS,
        KAFKA_TOPIC: topic,
        KAFKA_GROUP_ID: GROUP,
        PROJECTOR_STALL_SECONDS: '4',
        LOG_LEVEL: 'error',
        ...extra,
      }),
    );
    app.useLogger(['error']);
    await app.listen(port, '127.0.0.1');
  }

  /** The consumer lag (METRIC.consumerLag) per partition, from /metrics. */
  async function gaugeLag(): Promise<Map<number, number>> {
    const res = await httpGet(port, '/metrics');
    expect(res.status).toBe(200);
    const lag = new Map<number, number>();
    for (const line of res.text.split('\n')) {
      if (!line.startsWith(`${METRIC.consumerLag}{`)) continue;
      expect(line).toContain(`consumergroup="${GROUP}"`);
      expect(line).toContain(`topic="${topic}"`);
      const m = /partition="(\d+)"[^}]*\} (\S+)$/.exec(line);
      lag.set(Number(m![1]), Number(m![2]));
    }
    return lag;
  }

  async function highWatermarks(): Promise<Map<number, number>> {
    const admin = kafka.admin();
    await admin.connect();
    try {
      return new Map((await admin.fetchTopicOffsets(topic)).map((o) => [o.partition, Number(o.high)]));
    } finally {
      await admin.disconnect();
    }
  }

  async function committed(
    via: { query: Client['query'] } = {
      query: (s: string, p: unknown[]) => db.query(s, p).then((rows) => ({ rows })),
    } as never,
  ): Promise<Map<number, number>> {
    const r = await via.query(
      'SELECT partition, next_offset FROM projector_offsets WHERE group_id = $1 AND topic = $2',
      [GROUP, topic],
    );
    return new Map(
      (r.rows as { partition: number; next_offset: string }[]).map((x) => [
        x.partition,
        Number(x.next_offset),
      ]),
    );
  }

  function trueLag(hw: Map<number, number>, stored: Map<number, number>): Map<number, number> {
    return new Map([...hw].map(([p, h]) => [p, h - (stored.get(p) ?? 0)]));
  }

  const events = (n: number) =>
    Array.from({ length: n }, () => {
      const id = nextId++;
      return toMessage(flagEvent(id, `ops-${id % 37}`, id));
    });

  async function ready(): Promise<{
    status: number;
    body: { status: string; details?: Record<string, Record<string, unknown>> };
  }> {
    const r = await httpGet(port, '/health/ready');
    return { status: r.status, body: r.json() as never };
  }

  beforeEach(async () => {
    kafka = testKafka();
    db = await createTestDatabase('ops');
    ({ topic, drop: dropTopic } = await createTestTopic(kafka, 'ops'));
  });

  afterEach(async () => {
    await app?.close();
    app = undefined;
    await dropTopic();
    await db.drop();
  });

  it('lag gauge equals the true lag while blocked, never exceeds it while a producer runs, and reaches 0; a stuck projector is not ready until released', async () => {
    await startProjector();
    await waitFor('ready', async () => (await ready()).status === 200, { timeoutMs: 30000 });
    expect((await httpGet(port, '/health/live')).json()).toMatchObject({ status: 'ok' });

    // block the projector: its batches wait on the active version's projector_offsets
    const locker = new Client({ connectionString: db.url });
    await locker.connect();
    const schema = (
      await db.query<{ s: string }>(
        `SELECT schema_name AS s FROM projection_versions WHERE status = 'active'`,
      )
    )[0].s;
    await locker.query('BEGIN');
    await locker.query(`LOCK TABLE ${schema}.projector_offsets IN ACCESS EXCLUSIVE MODE`);
    let released = false;
    try {
      await produce(kafka, topic, events(600), 100);
      // the gauge equals the true lag: high-water marks − positions stored in Postgres (read under the lock)
      await locker.query(`SET LOCAL search_path TO ${schema}, public`);
      const truth = trueLag(await highWatermarks(), await committed(locker));
      expect([...truth.values()].reduce((a, b) => a + b, 0)).toBe(600);
      await waitFor(
        'gauge = true lag',
        async () => {
          const g = await gaugeLag();
          return [...truth].every(([p, l]) => g.get(p) === l);
        },
        { timeoutMs: 20000 },
      );

      // stuck: behind and not moving for PROJECTOR_STALL_SECONDS → not ready, with the reason
      const notReady = await waitFor(
        'not ready',
        async () => {
          const r = await ready();
          return r.status === 503 && r.body.details?.progress?.status === 'down' ? r : undefined;
        },
        { timeoutMs: 20000 },
      );
      expect(notReady!.body.details?.progress).toMatchObject({ status: 'down', lag: 600 });
      expect(notReady!.body.details?.postgres).toMatchObject({ status: 'up' });
      expect(notReady!.body.details?.consumer).toMatchObject({ status: 'up' });

      await locker.query('COMMIT');
      released = true;
    } finally {
      if (!released) await locker.query('ROLLBACK').catch(() => undefined);
      await locker.end();
    }
    await waitFor('ready again', async () => (await ready()).status === 200, { timeoutMs: 30000 });

    // a producer runs: the gauge never reports more than the true lag, and shows the backlog
    let producing = true;
    // four producers at once, faster than the projector applies, so a backlog builds up while they run
    const producer = Promise.all(
      Array.from({ length: 4 }, async () => {
        for (let i = 0; i < 5; i++) await produce(kafka, topic, events(4000), 4000);
      }),
    ).finally(() => (producing = false));
    let sawLag = false;
    let samples = 0;
    // sampled while the producers run and until the projector has caught up with them. The projector hears
    // of a commit after Postgres shows it (on a loaded machine, long after), so the gauge may trail the stored
    // position by the batch in flight, and by that one alone: a partition's batches are applied one after
    // another, each heard of before the next starts. So the gauge's position is at least the start of the
    // newest batch committed when it is scraped: at least the largest position read before, below the newest
    // one read (when none is below, nothing bounds it yet)
    const seen = new Map<number, Set<number>>();
    const note = (positions: Map<number, number>) => {
      for (const [p, v] of positions) seen.set(p, (seen.get(p) ?? new Set<number>()).add(v));
    };
    note(await committed());
    for (let caughtUp = false; producing || !caughtUp;) {
      const before = await committed();
      note(before);
      const g = await gaugeLag();
      const hw = await highWatermarks();
      for (const [p, l] of g) {
        const newest = before.get(p) ?? 0;
        const below = [...(seen.get(p) ?? [])].filter((v) => v < newest);
        if (below.length > 0) expect(l).toBeLessThanOrEqual((hw.get(p) ?? 0) - Math.max(...below));
      }
      if ([...g.values()].some((l) => l > 0)) sawLag = true;
      samples++;
      const after = await committed();
      caughtUp = [...hw].every(([p, h]) => (after.get(p) ?? 0) >= h);
    }
    await producer;
    expect(samples).toBeGreaterThan(0);
    expect(sawLag).toBe(true);

    // producer stopped: the projector catches up (true lag 0) and the gauge shows exactly that
    await waitFor(
      'true lag 0 and gauge 0',
      async () => {
        const truth = trueLag(await highWatermarks(), await committed());
        const g = await gaugeLag();
        return (
          [...truth.values()].every((l) => l === 0) &&
          g.size === truth.size &&
          [...truth].every(([p, l]) => g.get(p) === l)
        );
      },
      { timeoutMs: 30000 },
    );

    const text = (await httpGet(port, '/metrics')).text;
    expect(text).toMatch(new RegExp(`${METRIC.eventsApplied}\\{[^}]*outcome="stored"[^}]*\\} \\d+`));
    expect(text).toContain(`${METRIC.batchDuration}_bucket`);
    expect(text).toMatch(new RegExp(`${METRIC.timeLag}\\{[^}]*\\} 0`));
  });

  it('a projector catching up on a backlog stays ready and reports its lag', async () => {
    await produce(kafka, topic, events(60000), 2000);
    // a partition may wait a few fetch rounds for its turn while others catch up (kafkajs fetches at most
    // 8 MB, about 4 partitions' worth): the stall time must be longer than that. On a loaded 2-core machine
    // a partition waited 15.1 s for its turn while the others moved, so the bound here is 45 s
    await startProjector({ PROJECTOR_STALL_SECONDS: '45' });
    let ok = 0;
    let behindAndReady = 0;
    const notReady: unknown[] = [];
    await waitFor(
      'caught up',
      async () => {
        const r = await ready();
        const joined = r.body.details?.consumer?.status === 'up';
        if (joined) {
          if (r.status !== 200)
            notReady.push({ at: new Date().toISOString(), status: r.status, body: r.body });
          if (r.status === 200) ok++;
          if (r.status === 200 && Number(r.body.details?.progress?.lag) > 0) behindAndReady++;
        }
        const g = await gaugeLag();
        return joined && g.size === 6 && [...g.values()].every((l) => l === 0);
      },
      { timeoutMs: 120000, intervalMs: 100 },
    );
    expect(notReady).toEqual([]);
    expect(ok).toBeGreaterThan(0);
    expect(behindAndReady).toBeGreaterThan(0);
  });

  it('protects /metrics with a bearer token when METRICS_TOKEN is set', async () => {
    await startProjector({ METRICS_TOKEN: 'a-long-metrics-token-123' });
    expect((await httpGet(port, '/metrics')).status).toBe(401);
    expect((await httpGet(port, '/metrics', { authorization: 'Bearer wrong-token-xxxxxxxx' })).status).toBe(
      401,
    );
    const ok = await httpGet(port, '/metrics', { authorization: 'Bearer a-long-metrics-token-123' });
    expect(ok.status).toBe(200);
    expect(ok.text).toContain('process_cpu_seconds_total');
    expect((await httpGet(port, '/health/live')).status).toBe(200);
  });

  it('answers not ready with a generic reason when Postgres is unreachable: no raw database error in the body', async () => {
    const pg = new URL(db.url);
    const proxy = await tcpProxy(Number(pg.port || 5432));
    try {
      pg.port = String(proxy.port);
      await startProjector({ DATABASE_URL: pg.toString() });
      await waitFor('ready', async () => (await ready()).status === 200, { timeoutMs: 30000 });
      await proxy.close(); // connections reset, nothing listens at that port any more
      const r = await waitFor(
        'postgres down',
        async () => {
          const x = await httpGet(port, '/health/ready');
          const body = x.json() as { error?: { postgres?: unknown } };
          return x.status === 503 && body.error?.postgres ? x : undefined;
        },
        { timeoutMs: 30000 },
      );
      expect(r!.json()).toMatchObject({
        status: 'error',
        error: { postgres: { status: 'down', message: 'database unreachable' } },
      });
      expect(r!.text).not.toMatch(/ECONN|refused|terminated|timeout|127\.0\.0\.1|::1|\bconnect\b/i);
      expect(r!.text).not.toContain(String(proxy.port));
    } finally {
      await proxy.close();
    }
  });
});
