/*
 * `npm run bench -- --peer`: flaglens against the real Unleash 6.10.1, on the same events, side by side.
 *
 * 1. installs unleash-server@6.10.1 into the cache folder of `npm run conformance` and starts it on a fresh
 *    database (conformance/unleash-peer.ts);
 * 2. loads it through its HTTP API: a flag with `flagEvents` events (toggles, strategy updates), a project of
 *    `projectFlags` flags (each enabled in development), the admin's personal access token for the profile;
 * 3. starts a fresh flaglens (database, topic, projector and api, compiled, as the bench starts them) and feeds
 *    it from Unleash's database with the source connector (`flaglens source unleash --database-url … --once`),
 *    so both hold the same events by construction; waits until projected;
 * 4. reads both, endpoint by endpoint, taking turns (Unleash, flaglens, Unleash, flaglens…) with the bench's
 *    load tool and connections; each answer is checked to be 200 first, and its body size recorded.
 * Unleash, its database and the flaglens stack are stopped and dropped at the end, also on failure.
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Client } from 'pg';
import { createKafka } from '@flaglens/kafka';
import { median } from './stats';
import { createTestDatabase } from '@flaglens/testing/support/test-database';
import { createTestTopic } from '@flaglens/testing/support/test-kafka';
import { freePort, httpGet } from '@flaglens/testing/support/http';
import { startBuiltApp, stopApp } from '@flaglens/testing/support/processes';
import { waitFor } from '@flaglens/testing/support/wait-for';
import { installPeer, PEER_VERSION, startPeer, type Peer } from '../conformance/unleash-peer';
import { UnleashClient } from '../conformance/scenario';
import { drained } from '../conformance/run';
import { load, type LoadResult, type LoadTool } from './load';

const ROOT = join(__dirname, '..');
const BIG_FLAG = 'flag-big';
const PROJECT = 'bench';
const ENVIRONMENTS = ['development', 'production'];
/** Parallel writes while loading Unleash (its pool is 10 connections). */
const WRITE_CONCURRENCY = 8;

export interface PeerOptions {
  /** events of the big flag, and flags of the project (defaults: 2,000 and 200; 200 and 50 with `quick`) */
  flagEvents?: number;
  projectFlags?: number;
  quick: boolean;
  seconds: number;
  connections: number[];
  tool: LoadTool;
  brokers: string;
  log: (m: string) => void;
}

export interface PeerSide {
  status: number;
  bytes: number;
  /** events in the answer and `totalEvents` (event lists only) */
  events?: number;
  totalEvents?: number;
}

export interface PeerRow {
  endpoint: string;
  connections: number;
  tool: LoadTool;
  unleash: LoadResult & PeerSide;
  flaglens: LoadResult & PeerSide;
  /** flaglens req/s ÷ Unleash req/s */
  ratio: number;
  /** req/s of each turn, in the order run */
  turns: { unleash: number[]; flaglens: number[] };
}

export interface PeerResult {
  unleash: string;
  dataset: { flagEvents: number; projectFlags: number; unleashEvents: number; flaglensEvents: number };
  loadSeconds: number;
  feedSeconds: number;
  rounds: number;
  rows: PeerRow[];
  skipped: { endpoint: string; unleashStatus: number; flaglensStatus: number }[];
}

/** Runs `fn(0..n-1)` with at most `concurrency` at a time (hand-written: a dozen lines, no dependency). */
async function pool(n: number, concurrency: number, fn: (i: number) => Promise<unknown>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < n) await fn(next++);
  };
  await Promise.all(Array.from({ length: Math.min(n, concurrency) }, worker));
}

/** One side's figure over its turns: the median of each measure (the turns alternate with the other side). */
export function medianLoad(turns: LoadResult[]): LoadResult {
  return {
    tool: turns[0].tool,
    reqPerSec: Math.round(median(turns.map((t) => t.reqPerSec))),
    p50Ms: Number(median(turns.map((t) => t.p50Ms)).toFixed(2)),
    p99Ms: Number(median(turns.map((t) => t.p99Ms)).toFixed(2)),
    non2xx: turns.reduce((n, t) => n + t.non2xx, 0),
  };
}

export function peerRow(
  endpoint: string,
  connections: number,
  unleash: { probe: PeerSide; turns: LoadResult[] },
  flaglens: { probe: PeerSide; turns: LoadResult[] },
): PeerRow {
  const u = medianLoad(unleash.turns);
  const f = medianLoad(flaglens.turns);
  return {
    endpoint,
    connections,
    tool: u.tool,
    unleash: { ...u, ...unleash.probe },
    flaglens: { ...f, ...flaglens.probe },
    ratio: Number((f.reqPerSec / u.reqPerSec).toFixed(1)),
    turns: {
      unleash: unleash.turns.map((t) => t.reqPerSec),
      flaglens: flaglens.turns.map((t) => t.reqPerSec),
    },
  };
}

const kb = (bytes: number) => (bytes >= 10_000 ? `${Math.round(bytes / 1000)} kB` : `${bytes} B`);
const body = (s: PeerSide) =>
  `${kb(s.bytes)}${s.events !== undefined ? ` (${s.events} of ${s.totalEvents ?? '?'} events)` : ''}`;

/** The side-by-side table, for the bench's .md. */
export function peerMarkdown(p: PeerResult): string[] {
  return [
    `## flaglens against the real Unleash ${p.unleash}, on the same events`,
    '',
    `Unleash loaded through its API in ${p.loadSeconds} s (a flag of ${p.dataset.flagEvents} events, a project of ${p.dataset.projectFlags} flags; ${p.dataset.unleashEvents} events in its table), fed to flaglens by the source connector in ${p.feedSeconds} s (${p.dataset.flaglensEvents} events in its log). Reads take turns, ${p.rounds} turn(s) each, the median reported.`,
    '',
    '| endpoint | c | tool | Unleash req/s, p99 | flaglens req/s, p99 | flaglens / Unleash | body Unleash / flaglens |',
    '|---|---|---|---|---|---|---|',
    ...p.rows.map(
      (r) =>
        `| ${r.endpoint} | ${r.connections} | ${r.tool} | ${r.unleash.reqPerSec}, ${r.unleash.p99Ms} ms${r.unleash.non2xx ? ` (${r.unleash.non2xx} failed)` : ''} | ${r.flaglens.reqPerSec}, ${r.flaglens.p99Ms} ms${r.flaglens.non2xx ? ` (${r.flaglens.non2xx} failed)` : ''} | **×${r.ratio}** | ${body(r.unleash)} / ${body(r.flaglens)} |`,
    ),
    ...p.skipped.map(
      (s) =>
        `| ${s.endpoint} | | | status ${s.unleashStatus} | status ${s.flaglensStatus} | not compared | |`,
    ),
    '',
  ];
}

async function probe(port: number, path: string, headers: Record<string, string>): Promise<PeerSide> {
  const r = await httpGet(port, path, headers);
  const side: PeerSide = { status: r.status, bytes: Buffer.byteLength(r.text) };
  if (r.status === 200 && path.startsWith('/api/admin/events/')) {
    const list = r.json() as { events?: unknown[]; totalEvents?: number };
    side.events = list.events?.length;
    side.totalEvents = list.totalEvents;
  }
  return side;
}

/** Loads the real Unleash through its API: the big flag's events, the project's flags, the jobs. */
async function loadUnleash(
  u: UnleashClient,
  db: Client,
  pat: string,
  flagEvents: number,
  projectFlags: number,
): Promise<void> {
  const flagRoute = `/api/admin/projects/default/features/${BIG_FLAG}`;
  await u.post('/api/admin/projects/default/features', { name: BIG_FLAG, type: 'release' }, pat);
  const strategy = (rollout: number) => ({
    name: 'flexibleRollout',
    constraints: [],
    parameters: { rollout: String(rollout), stickiness: 'default', groupId: BIG_FLAG },
  });
  // a strategy in both environments (enabling an environment without one would add a default strategy)
  const ids: string[] = [];
  for (const env of ENVIRONMENTS)
    ids.push(
      ((await u.post(`${flagRoute}/environments/${env}/strategies`, strategy(0), pat)).json as { id: string })
        .id,
    );
  const count = async () =>
    Number(
      (await db.query<{ n: string }>('SELECT count(*) AS n FROM events WHERE feature_name = $1', [BIG_FLAG]))
        .rows[0].n,
    );
  // each request below writes one event: toggles (on/off in turn, one chain per environment, as a toggle that
  // changes nothing writes none) and strategy updates, in parallel chains; counted again at the end
  let written = await count();
  let k = 0;
  const chain = async (step: () => Promise<unknown>) => {
    while (written < flagEvents) {
      written++;
      await step();
    }
  };
  await Promise.all([
    ...ENVIRONMENTS.map((env) => {
      let toggles = 0;
      return chain(() => u.post(`${flagRoute}/environments/${env}/${toggles++ % 2 ? 'off' : 'on'}`, {}, pat));
    }),
    chain(() =>
      u.put(`${flagRoute}/environments/development/strategies/${ids[0]}`, strategy(++k % 101), pat),
    ),
  ]);
  const have = await count();
  if (have !== flagEvents) throw new Error(`${BIG_FLAG} has ${have} events in Unleash, not ${flagEvents}`);
  await u.post('/api/admin/harness/projects', { id: PROJECT, name: 'Bench' }, pat);
  await pool(projectFlags, WRITE_CONCURRENCY, async (i) => {
    const name = `${PROJECT}-flag-${i}`;
    await u.post(`/api/admin/projects/${PROJECT}/features`, { name, type: 'release' }, pat);
    await u.post(`/api/admin/projects/${PROJECT}/features/${name}/environments/development/on`, {}, pat);
  });
  // project health and stats, which the overview shows, computed now rather than by the hourly scheduler
  await u.post('/api/admin/harness/jobs', {}, pat);
}

export async function benchPeer(o: PeerOptions): Promise<PeerResult> {
  const flagEvents = o.flagEvents ?? (o.quick ? 200 : 2000);
  const projectFlags = o.projectFlags ?? (o.quick ? 50 : 200);
  const rounds = o.quick ? 1 : 2;
  installPeer(o.log);
  const kafka = createKafka({ brokers: o.brokers, clientId: 'flaglens-bench-peer', log: () => undefined });
  let peer: Peer | undefined;
  let unleashDb: Client | undefined;
  const cleanups: (() => Promise<unknown>)[] = [];
  try {
    peer = await startPeer(await freePort());
    o.log(`Unleash ${PEER_VERSION} up on ${peer.url} (database ${peer.db})`);
    const u = new UnleashClient(peer.url, peer.adminToken);
    unleashDb = new Client({ connectionString: peer.dbUrl });
    await unleashDb.connect();
    const t0 = Date.now();
    const pat = await u.pat('admin', peer.adminPassword, 'bench');
    await loadUnleash(u, unleashDb, pat, flagEvents, projectFlags);
    const loadSeconds = Number(((Date.now() - t0) / 1000).toFixed(1));
    const unleashEvents = Number(
      (await unleashDb.query<{ n: string }>('SELECT count(*) AS n FROM events')).rows[0].n,
    );
    o.log(`Unleash loaded through its API in ${loadSeconds} s (${unleashEvents} events)`);

    // a fresh flaglens, compiled processes as the bench runs them, fed by the source connector
    const db = await createTestDatabase('bench_peer');
    cleanups.unshift(() => db.drop());
    const { topic, drop } = await createTestTopic(kafka, 'bench-peer');
    cleanups.unshift(drop);
    const port = await freePort();
    const env = {
      DATABASE_URL: db.url,
      KAFKA_BROKERS: o.brokers,
      KAFKA_TOPIC: topic,
      KAFKA_GROUP_ID: `bench-peer-${randomBytes(3).toString('hex')}`, // a group of its own, as in run.ts
      LOG_LEVEL: 'warn',
      PORT: String(port),
      PROJECTOR_PORT: String(await freePort()),
    };
    for (const app of ['projector', 'api'] as const) {
      const child = startBuiltApp(app, env);
      cleanups.unshift(() => stopApp(child));
    }
    const cli = (args: string[]) =>
      promisify(execFile)(process.execPath, [join(ROOT, 'bin', 'flaglens.js'), ...args], {
        cwd: ROOT,
        env: { ...process.env, ...env },
      });
    const f0 = Date.now();
    const once = await cli(['source', 'unleash', '--database-url', peer.dbUrl, '--once']);
    o.log(`source connector --once: ${once.stdout.trim().split('\n').pop()}`);
    await drained({ kafka, topic, db });
    const feedSeconds = Number(((Date.now() - f0) / 1000).toFixed(1));
    const flaglensEvents = Number(
      (await db.query<{ n: string }>('SELECT count(*) AS n FROM event_log'))[0].n,
    );
    o.log(`flaglens fed and projected in ${feedSeconds} s (${flaglensEvents} events)`);
    // the admin is user 1 on both sides
    const token = (await cli(['token', 'create', '--user', '1', '--name', 'bench-peer'])).stdout.trim();
    await waitFor('the api up', async () => (await httpGet(port, '/health/live')).status === 200, {
      timeoutMs: 120_000,
    });

    const sides = [
      { name: 'unleash' as const, port: peer.port, headers: { authorization: pat } },
      { name: 'flaglens' as const, port, headers: { authorization: token } },
    ];
    const endpoints: [string, string][] = [
      [`GET /api/admin/events/{${flagEvents}-event flag}`, `/api/admin/events/${BIG_FLAG}`],
      [
        `GET /api/admin/projects/{${projectFlags}-flag project}/overview`,
        `/api/admin/projects/${PROJECT}/overview`,
      ],
      ['GET /api/admin/user/profile', '/api/admin/user/profile'],
      ['GET /api/admin/dashboard/executive', '/api/admin/dashboard/executive'],
    ];
    const result: PeerResult = {
      unleash: PEER_VERSION,
      dataset: { flagEvents, projectFlags, unleashEvents, flaglensEvents },
      loadSeconds,
      feedSeconds,
      rounds,
      rows: [],
      skipped: [],
    };
    for (const [endpoint, path] of endpoints) {
      const [up, fp] = await Promise.all(sides.map((s) => probe(s.port, path, s.headers)));
      if (up.status !== 200 || fp.status !== 200) {
        o.log(`${endpoint}: Unleash ${up.status}, flaglens ${fp.status}: not compared`);
        result.skipped.push({ endpoint, unleashStatus: up.status, flaglensStatus: fp.status });
        continue;
      }
      const url = (s: (typeof sides)[number]) => `http://127.0.0.1:${s.port}${path}`;
      for (const s of sides) await load(o.tool, url(s), s.headers, 10, 1); // warm-up
      for (const connections of o.connections) {
        const turns: Record<'unleash' | 'flaglens', LoadResult[]> = { unleash: [], flaglens: [] };
        for (let r = 0; r < rounds; r++)
          for (const s of sides)
            turns[s.name].push(await load(o.tool, url(s), s.headers, connections, o.seconds));
        const row = peerRow(
          endpoint,
          connections,
          { probe: up, turns: turns.unleash },
          { probe: fp, turns: turns.flaglens },
        );
        result.rows.push(row);
        o.log(
          `${endpoint} c=${connections} (${o.tool}): Unleash ${row.unleash.reqPerSec} req/s p99 ${row.unleash.p99Ms} ms (${up.bytes} B), flaglens ${row.flaglens.reqPerSec} req/s p99 ${row.flaglens.p99Ms} ms (${fp.bytes} B): ×${row.ratio}`,
        );
      }
    }
    return result;
  } finally {
    for (const c of cleanups) await c().catch(() => undefined);
    await unleashDb?.end().catch(() => undefined);
    await peer?.stop().catch(() => undefined);
  }
}
