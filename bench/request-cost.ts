/*
 * npm run bench:request-cost -- [--seconds S] [--connections C] [--events N]
 *
 * What the api does for one cached read, in µs of CPU per request, part by part: for each of the cached small
 * reads (a 200-flag project's overview, the profile, a flag's event list), the built api is started alone with
 * V8's CPU profiler, loaded with wrk (C connections, S seconds, after a warm-up; then 10 connections for the
 * latency), and stopped; the samples of the first measured load are charged to the project's file that asked for
 * the work (bench/profile-breakdown.ts). In the
 * same run the floor server (bench/floor-server.ts) answers a body of the same size under the same load, and both
 * processes' CPU per request is read from /proc. The profiler's own cost is in the api's figures (V8 samples
 * every millisecond); the ratio to the floor and the parts' shares are what to compare between runs.
 *
 * The history: one project of 200 flags (generateHistory, seeded) and a flag of 2,000 events after it, fed to the
 * projections directly (no Kafka).
 * Writes bench/results/request-cost-<timestamp>.json.
 */
import 'reflect-metadata';
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Database, searchPathOption } from '@flaglens/persistence';
import { generateHistory } from '@flaglens/testing/generate-history';
import { cliArgs } from '@flaglens/testing/support/cli-args';
import { feedProjections } from '@flaglens/testing/support/feed-projections';
import { freePort, httpGet } from '@flaglens/testing/support/http';
import { startBuiltApp } from '@flaglens/testing/support/processes';
import { createTestDatabase } from '@flaglens/testing/support/test-database';
import { flagChangeEvent } from './bench-events';
import { load, loadTool } from './load';
import { machineFacts, procCpuSeconds } from './proc';
import { costBreakdown, type CostPart, type CpuProfile } from './profile-breakdown';

const ROOT = join(__dirname, '..');
const cli = cliArgs();
const SECONDS = Number(cli.value('--seconds') ?? 10);
const CONNECTIONS = Number(cli.value('--connections') ?? 50);
const EVENTS = Number(cli.value('--events') ?? 20_000);
for (const [flag, n] of [
  ['--seconds', SECONDS],
  ['--connections', CONNECTIONS],
  ['--events', EVENTS],
] as const)
  if (!Number.isInteger(n) || n <= 0) {
    console.error(`${flag} takes a whole number > 0`);
    process.exit(2);
  }
const NOW = '2026-11-22T09:01:00.000Z';
/** The second load's connections: its p99 beside the floor's. */
const FEW_CONNECTIONS = 10;
/** The events of the list read (as bench/run.ts's `flag-big`). */
const BIG_FLAG_EVENTS = 2000;
/** Parts costing less than this (µs per request) are summed as one row. */
const SMALL_US = 0.5;

const log = (m: string) => console.log(`[request-cost] ${m}`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const nowUs = () => Number(process.hrtime.bigint() / 1000n);

interface RouteCost {
  read: string;
  path: string;
  bytes: number;
  api: { reqPerSec: number; p99Ms: number; usPerRequest: number; requests: number };
  floor: { reqPerSec: number; p99Ms: number; usPerRequest: number };
  floorRatio: number;
  cpuRatio: number;
  fewConnections: {
    connections: number;
    api: { reqPerSec: number; p99Ms: number; usPerRequest: number };
    floor: { reqPerSec: number; p99Ms: number; usPerRequest: number };
    floorRatio: number;
  };
  /** the api's CPU in the measured load by part (µs per request), from its profile */
  parts: CostPart[];
  profiledUsPerRequest: number;
}

async function waitLive(port: number): Promise<void> {
  for (let i = 0; i < 120; i++) {
    if ((await httpGet(port, '/health/live').catch(() => ({ status: 0 }))).status === 200) return;
    await sleep(250);
  }
  throw new Error('the api did not start');
}

function stop(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}

async function startFloor(token: string): Promise<{ port: number; child: ChildProcess }> {
  const port = await freePort();
  const child = spawn(
    process.execPath,
    [
      '-r',
      'ts-node/register/transpile-only',
      '-r',
      'tsconfig-paths/register',
      join(__dirname, 'floor-server.ts'),
      String(port),
    ],
    { cwd: ROOT, env: { ...process.env, FLOOR_TOKEN: token }, stdio: ['ignore', 'pipe', 'inherit'] },
  );
  await new Promise<void>((resolve, reject) => {
    child.stdout!.on('data', (d: Buffer) => d.toString().includes('listening') && resolve());
    child.once('exit', (c) => reject(new Error(`the floor server exited with ${c}`)));
  });
  return { port, child };
}

/** wrk's load on `url` with the process's CPU around it: µs of its CPU per request completed. */
async function measured(
  url: string,
  headers: Record<string, string>,
  pid: number,
  connections = CONNECTIONS,
) {
  const cpu0 = procCpuSeconds(pid);
  const from = nowUs();
  const r = await load(loadTool(), url, headers, connections, SECONDS);
  const to = nowUs();
  const cpu = procCpuSeconds(pid) - cpu0;
  const requests = r.requests ?? Math.round(r.reqPerSec * SECONDS);
  if (r.non2xx > 0) throw new Error(`${url}: ${r.non2xx} answers were not 2xx`);
  return { r, from, to, requests, usPerRequest: Number(((cpu * 1e6) / requests).toFixed(1)) };
}

async function main(): Promise<void> {
  execFileSync('npm', ['run', '-s', 'build'], { cwd: ROOT, stdio: 'inherit' });
  const db = await createTestDatabase('request_cost');
  const children: ChildProcess[] = [];
  try {
    const ds = new Database({ url: db.url, max: 2, options: searchPathOption('flaglens_v1') });
    const events = generateHistory({
      seed: 7,
      projects: 1,
      flagsPerProject: 200,
      events: EVENTS,
      weeks: 52,
      end: NOW,
      rich: true,
    });
    // the bench's 2,000-event flag (bench/run.ts's `flag-big`), after the history
    const last = events[events.length - 1];
    for (let i = 0; i < BIG_FLAG_EVENTS; i++)
      events.push(
        flagChangeEvent({
          id: last.id + 1 + i,
          createdAt: new Date(Date.parse(last.createdAt) - (BIG_FLAG_EVENTS - i) * 1000).toISOString(),
          name: 'flag-big',
          project: 'default',
          created: i === 0,
          type: i,
          user: i,
          env: i,
          n: i,
          team: i,
        }),
      );
    const batches: (typeof events)[] = [];
    for (let i = 0; i < events.length; i += 1000) batches.push(events.slice(i, i + 1000));
    await feedProjections(ds, batches);
    await ds.end();
    log(`${events.length} events fed`);
    const env = {
      DATABASE_URL: db.url,
      FLAGLENS_CLOCK: NOW,
      KAFKA_BROKERS: process.env.KAFKA_BROKERS ?? '127.0.0.1:9092',
      LOG_LEVEL: 'warn',
    };
    const token = execFileSync(
      process.execPath,
      [join(ROOT, 'bin', 'flaglens.js'), 'token', 'create', '--user', 'admin', '--name', 'request-cost'],
      { cwd: ROOT, env: { ...process.env, ...env } },
    )
      .toString()
      .trim();
    const headers = { authorization: token };
    const floor = await startFloor(token);
    children.push(floor.child);
    const reads: [string, string][] = [
      ['overview of a 200-flag project', '/api/admin/projects/default/overview'],
      ['profile', '/api/admin/user/profile'],
      [`a ${BIG_FLAG_EVENTS}-event flag's list`, '/api/admin/events/flag-big'],
    ];
    const costs: RouteCost[] = [];
    for (const [read, path] of reads) {
      const dir = mkdtempSync(join(tmpdir(), 'flaglens-request-cost-'));
      const port = await freePort();
      process.env.BENCH_CPU_PROFILE = dir;
      const api = startBuiltApp('api', { ...env, PORT: String(port) });
      delete process.env.BENCH_CPU_PROFILE;
      children.push(api);
      await waitLive(port);
      const probe = await httpGet(port, path, headers);
      if (probe.status !== 200) throw new Error(`${path}: ${probe.status}`);
      const bytes = Buffer.byteLength(probe.text);
      const url = `http://127.0.0.1:${port}${path}`;
      const floorUrl = `http://127.0.0.1:${floor.port}/floor/${bytes}`;
      await load(loadTool(), url, headers, CONNECTIONS, 2); // warm-up: the cache, V8's optimised code
      await load(loadTool(), floorUrl, headers, CONNECTIONS, 2);
      const a = await measured(url, headers, api.pid!);
      const f = await measured(floorUrl, headers, floor.child.pid!);
      // the latency at few connections, where the floor's own p99 is a couple of milliseconds
      const few = await measured(url, headers, api.pid!, FEW_CONNECTIONS);
      const fewFloor = await measured(floorUrl, headers, floor.child.pid!, FEW_CONNECTIONS);
      await stop(api);
      const file = readdirSync(dir).find((n) => n.endsWith('.cpuprofile'));
      if (!file) throw new Error(`the api wrote no profile into ${dir}`);
      const profile = JSON.parse(readFileSync(join(dir, file), 'utf8')) as CpuProfile;
      rmSync(dir, { recursive: true, force: true });
      const all = costBreakdown(profile, a.from, a.to, a.requests);
      const parts = all.filter((p) => p.usPerRequest >= SMALL_US);
      const rest = all.filter((p) => p.usPerRequest < SMALL_US);
      if (rest.length > 0)
        parts.push({
          part: `${rest.length} other parts under ${SMALL_US} µs each`,
          usPerRequest: Number(rest.reduce((s, p) => s + p.usPerRequest, 0).toFixed(2)),
          share: Number(rest.reduce((s, p) => s + p.share, 0).toFixed(3)),
        });
      const profiled = Number(all.reduce((s, p) => s + p.usPerRequest, 0).toFixed(1));
      if (profiled === 0) throw new Error('no profile sample fell in the measured load: the clocks differ');
      const cost: RouteCost = {
        read,
        path,
        bytes,
        api: {
          reqPerSec: a.r.reqPerSec,
          p99Ms: a.r.p99Ms,
          usPerRequest: a.usPerRequest,
          requests: a.requests,
        },
        floor: { reqPerSec: f.r.reqPerSec, p99Ms: f.r.p99Ms, usPerRequest: f.usPerRequest },
        floorRatio: Number((a.r.reqPerSec / f.r.reqPerSec).toFixed(2)),
        fewConnections: {
          connections: FEW_CONNECTIONS,
          api: { reqPerSec: few.r.reqPerSec, p99Ms: few.r.p99Ms, usPerRequest: few.usPerRequest },
          floor: {
            reqPerSec: fewFloor.r.reqPerSec,
            p99Ms: fewFloor.r.p99Ms,
            usPerRequest: fewFloor.usPerRequest,
          },
          floorRatio: Number((few.r.reqPerSec / fewFloor.r.reqPerSec).toFixed(2)),
        },
        cpuRatio: Number((a.usPerRequest / f.usPerRequest).toFixed(2)),
        parts,
        profiledUsPerRequest: profiled,
      };
      costs.push(cost);
      log(
        `${read} (${bytes} B): api ${a.r.reqPerSec} req/s, ${a.usPerRequest} µs/req; floor ${f.r.reqPerSec} req/s, ` +
          `${f.usPerRequest} µs/req; ratio ${cost.floorRatio}, CPU ×${cost.cpuRatio}; profiled ${profiled} µs/req; ` +
          `at ${FEW_CONNECTIONS} connections p99 ${few.r.p99Ms} ms (floor ${fewFloor.r.p99Ms}), ratio ${cost.fewConnections.floorRatio}`,
      );
      for (const p of parts)
        log(
          `  ${String(p.usPerRequest).padStart(7)} µs  ${p.part}` +
            (p.within && p.within.length > 0
              ? ` (${p.within.map((w) => `${w.part} ${w.usPerRequest}`).join(', ')})`
              : ''),
        );
    }
    const startedAt = new Date().toISOString();
    const result = {
      startedAt,
      commit: execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT, encoding: 'utf8' }).trim(),
      machine: await machineFacts({ query: async <R>(sql: string) => ({ rows: await db.query<R>(sql) }) }),
      events: events.length,
      connections: CONNECTIONS,
      seconds: SECONDS,
      tool: loadTool(),
      reads: costs,
    };
    const out = join(ROOT, 'bench', 'results');
    mkdirSync(out, { recursive: true });
    const name = join(out, `request-cost-${startedAt.replace(/[:.]/g, '-')}.json`);
    writeFileSync(name, JSON.stringify(result, null, 2) + '\n');
    log(`wrote ${name}`);
  } finally {
    for (const c of children) await stop(c);
    await db.drop();
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
