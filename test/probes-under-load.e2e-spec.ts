import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { request } from 'node:http';
import type { SourcedEvent } from '@flaglens/projections';
import { appendEvents } from '@flaglens/projections';
import { Database, searchPathOption } from '@flaglens/persistence';
import { createTestDatabase, type TestDatabase } from '@flaglens/testing/support/test-database';
import { strategyUpdate } from '@flaglens/testing/support/event-factory';
import { freePort, httpGet } from '@flaglens/testing/support/http';
import { startBuiltApp, stopApp } from '@flaglens/testing/support/processes';
import { waitFor } from '@flaglens/testing/support/wait-for';

/** The largest list the api streams in the measure, read by four readers at once. */
const BIG = 200_000;
const READERS = 4;
/**
 * The deployment gives a probe 3 s (`deploy/k8s/api.yaml`), Kubernetes' default 1 s. Under any read load the api
 * answers all but one probe in fifty within PROBE_BUDGET_MS and every one within PROBE_MAX_MS, a third of the deployment's
 * timeout. Measured against a control: a bare Node HTTP server, probed at the same moment, so that the time the
 * whole machine was busy (the suite runs two lanes on two cores) is not counted against the api.
 */
const PROBE_BUDGET_MS = 250;
const PROBE_MAX_MS = 1_000;

function event(id: number, flag: string, i: number): SourcedEvent {
  return { event: strategyUpdate(id, flag, i), knownType: true, topic: 'load', partition: 0, offset: id };
}

/** Reads a whole answer, as fast as it comes; its status and bytes. */
function drain(port: number, path: string): Promise<{ status: number; bytes: number }> {
  return new Promise((resolve, reject) => {
    request({ host: '127.0.0.1', port, path }, (res) => {
      let bytes = 0;
      res.on('data', (c: Buffer) => (bytes += c.length));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, bytes }));
      res.on('error', reject);
    })
      .on('error', reject)
      .end();
  });
}

/**
 * Reads a whole answer in a process of its own (curl), so that the bytes of the largest answers do not load the
 * test's own event loop, which times the probes.
 */
async function drainElsewhere(port: number, path: string): Promise<{ status: number; bytes: number }> {
  const { stdout } = await promisify(execFile)(
    'curl',
    ['-s', '-o', '/dev/null', '-w', '%{http_code} %{size_download}', `http://127.0.0.1:${port}${path}`],
    { maxBuffer: 1024 },
  );
  const [status, bytes] = stdout.trim().split(' ').map(Number);
  return { status, bytes };
}

/**
 * Holds the lock that the suite's runs which load both cores on purpose take (scripts/test.sh: the chaos run, the
 * benches, in the other lane), so that none of them runs while the probes are timed: a machine starved by them
 * stalls any process with work of its own, the control server far less. Released by `release`.
 */
async function holdHeavyLock(): Promise<{ release: () => void }> {
  const dir = join(__dirname, '..', '.run');
  mkdirSync(dir, { recursive: true });
  const holder = spawn(
    'flock',
    ['-o', '-w', '1800', join(dir, 'cpu-heavy.lock'), '-c', 'echo held; exec sleep 3600'],
    {
      detached: true,
      stdio: ['ignore', 'pipe', 'ignore'],
    },
  );
  await new Promise<void>((resolve, reject) => {
    holder.stdout!.on('data', (d: Buffer) => d.toString().includes('held') && resolve());
    holder.once('exit', (code) => reject(new Error(`flock exited with ${code} before holding the lock`)));
  });
  return {
    release: () => {
      try {
        process.kill(-holder.pid!, 'SIGTERM');
      } catch {
        // already gone
      }
    },
  };
}

/** One GET, its status and how long it took. */
async function timedGet(port: number, path: string): Promise<{ ms: number; status: number }> {
  const t0 = performance.now();
  const { status } = await httpGet(port, path);
  return { ms: performance.now() - t0, status };
}

/** The api's longest event-loop delay since the last scrape (prom-client's default metric), in ms. */
async function eventLoopMaxMs(port: number): Promise<number> {
  const { text } = await httpGet(port, '/metrics');
  const line = text.split('\n').find((l) => /^nodejs_eventloop_lag_max_seconds[{ ]/.test(l));
  return line ? Math.round(Number(line.split(' ').pop()) * 1000) : NaN;
}

const p99 = (xs: number[]) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * 0.99))];

/**
 * The api's probes and small reads while it streams its largest answers: four readers of a 200,000-event list,
 * the insights over ten years and reads as of an instant, all at once. `/health/live` and `/health/ready` answer
 * within PROBE_BUDGET_MS but for one in fifty, and within PROBE_MAX_MS each time (a liveness probe that times out
 * restarts the pod: a heavy read would become an outage).
 */
describe('probes under the heaviest reads (running api, real Postgres)', () => {
  let db: TestDatabase;
  let api: ChildProcess;
  let control: ChildProcess;
  let port: number;
  let controlPort: number;
  const logs: string[] = [];

  beforeAll(async () => {
    db = await createTestDatabase('probes_load');
    const ds = new Database({ url: db.url, max: 1, options: searchPathOption('flaglens_v1') });
    const c = await ds.connect();
    try {
      for (let from = 0; from < BIG; from += 20_000) {
        const batch = Array.from({ length: 20_000 }, (_, i) => event(from + i + 1, 'big.flag', from + i));
        await c.query('BEGIN');
        await appendEvents(c, batch);
        await c.query('COMMIT');
      }
      await c.query('BEGIN');
      await appendEvents(
        c,
        Array.from({ length: 50 }, (_, i) => event(BIG + i + 1, 'small.flag', i)),
      );
      await c.query('COMMIT');
      await c.query('VACUUM ANALYZE event_log');
    } finally {
      c.release();
      await ds.end();
    }
    port = await freePort();
    api = startBuiltApp(
      'api',
      { DATABASE_URL: db.url, PORT: String(port), FLAGLENS_AUTH: 'off', LOG_LEVEL: 'warn' },
      ['ignore', 'pipe', 'pipe'],
    );
    api.stdout!.on('data', (d: Buffer) => logs.push(d.toString()));
    api.stderr!.on('data', (d: Buffer) => logs.push(d.toString()));
    await waitFor('api ready', async () => (await httpGet(port, '/health/ready')).status === 200, {
      timeoutMs: 60_000,
    });
    controlPort = await freePort();
    control = spawn(
      process.execPath,
      [
        '-e',
        `require('node:http').createServer((q, s) => s.end('{"status":"ok"}')).listen(${controlPort}, '127.0.0.1')`,
      ],
      { stdio: 'ignore' },
    );
    await waitFor('the control up', async () => (await httpGet(controlPort, '/')).status === 200);
    // warm: the small read's plan, the probes' paths
    await drain(port, '/api/admin/events/small.flag');
  });

  afterAll(async () => {
    if (api) await stopApp(api);
    if (control) await stopApp(control);
    await db?.drop();
  });

  it(`/health/live and /health/ready answer within ${PROBE_BUDGET_MS} ms (49 in 50) and ${PROBE_MAX_MS} ms while the api streams its largest answers`, async () => {
    const lock = await holdHeavyLock();
    try {
      await probesUnderLoad();
    } finally {
      lock.release();
    }
  }, 1_900_000);

  async function probesUnderLoad(): Promise<void> {
    let loading = true;
    const heavy = (async () => {
      const lists = Array.from({ length: READERS }, () => drainElsewhere(port, '/api/admin/events/big.flag'));
      const others = (async () => {
        const paths = [
          '/api/admin/insights?from=2016-01-01&to=2025-12-31',
          '/api/admin/projects/default/overview?at=2023-03-01T00:00:00Z',
          '/api/admin/events/big.flag?at=2023-02-01T00:00:00Z',
        ];
        for (let i = 0; loading; i++) await drainElsewhere(port, paths[i % paths.length]);
      })();
      const done = await Promise.all(lists);
      loading = false;
      await others;
      return done;
    })();

    const timed: Record<string, number[]> = { live: [], ready: [], small: [] };
    /** each probe's time less the control's in the same turn: what the api itself adds */
    const added: Record<string, number[]> = { live: [], ready: [], small: [] };
    const paths: Record<string, string> = {
      live: '/health/live',
      ready: '/health/ready',
      small: '/api/admin/events/small.flag',
    };
    const statuses = new Set<number>();
    await eventLoopMaxMs(port); // a scrape resets the api's event-loop histogram: the next one covers the load
    while (loading) {
      for (const what of ['live', 'ready', 'small']) {
        const [control, probe] = await Promise.all([timedGet(controlPort, '/'), timedGet(port, paths[what])]);
        timed[what].push(probe.ms);
        added[what].push(probe.ms - control.ms);
        statuses.add(probe.status);
      }
      await new Promise((r) => setTimeout(r, 20));
    }
    const lists = await heavy;
    const apiEventLoopMaxMs = await eventLoopMaxMs(port);
    const summary = Object.fromEntries(
      Object.entries(timed).map(([k, v]) => [
        k,
        {
          n: v.length,
          p99Ms: Math.round(p99(v)),
          maxMs: Math.round(Math.max(...v)),
          overBudget: added[k].filter((ms) => ms > PROBE_BUDGET_MS).length,
          maxOverControlMs: Math.round(Math.max(...added[k])),
        },
      ]),
    );
    console.log(
      `probes and a small read while ${READERS} readers stream ${BIG} events: ${JSON.stringify(summary)}; ` +
        `the api's longest event-loop delay ${apiEventLoopMaxMs} ms`,
    );
    expect(lists.every((l) => l.status === 200 && l.bytes > BIG * 100)).toBe(true);
    expect([...statuses]).toEqual([200]);
    expect(timed.live.length).toBeGreaterThan(10);
    expect({
      liveP98: summary.live.overBudget <= Math.floor(summary.live.n / 50),
      readyP98: summary.ready.overBudget <= Math.floor(summary.ready.n / 50),
      liveMax: summary.live.maxOverControlMs <= PROBE_MAX_MS,
      readyMax: summary.ready.maxOverControlMs <= PROBE_MAX_MS,
    }).toEqual({ liveP98: true, readyP98: true, liveMax: true, readyMax: true });
  }
});
