/*
 * npm run bench [-- --quick] [--events N] [--read-seconds S] [--compare <result.json>] [--peer]
 *
 * One command, one run; every ratio is measured in the same run (the machines are shared and noisy):
 *  - ingest: a simulated history produced to a fresh topic, then the projector (compiled, a real process)
 *    from offset 0 until lag 0 (events/s, peak RSS); beside it the ceiling: the same rows COPY'd by Postgres
 *    into an empty copy of the event-log table, as one stream;
 *  - freshness: at a steady rate, the time from produce to visible through the api, sampled with markers (those
 *    of the first 2 s at the rate are a warm-up, not counted; the slowest are printed);
 *  - reads: the running api (auth on) at 10 and 50 connections (50 only with --quick) after a warm-up, each endpoint
 *    taking turns with its floor: a bare authenticated Fastify route answering a body of the same size
 *    (bench/floor-server.ts), loaded by the same tool (wrk where installed, else autocannon: bench/load.ts); each
 *    endpoint is reported as a ratio to its floor;
 *  - rebuild: the `rebuild` command over the same history (seconds, events/s, peak RSS);
 *  - misses: random flags and projects of an extra history while its flags change at the rate (bench/miss.ts),
 *    as fast as 50 connections go (a closed loop), then by 50 clients pausing between requests at a rate offered
 *    (`--paced-rate N`, 2,000 req/s);
 *  - insights: the uncached report over 2 years × 200 projects, from stored weeks and computed in full
 *    (bench/insights.ts; 200,000 events, 20,000 with --quick).
 *  - with `--peer`: the real Unleash 6.10.1 and a fresh flaglens fed from it, read side by side (bench/peer.ts).
 * `--quick` (CI) runs a small form and checks one threshold, the cached reads' CPU per request against the floor's (bench/cpu-bound.ts; every run checks it); `--ingest-only` stops after the ingest figures, `--freshness-only` after freshness, `--reads-only` runs the cached reads right after the ingest, `--miss-only` the miss load (`--miss-routes events|overview`: one kind of path alone). `--projectors N` (with `--ingest-only`) ingests with N projectors in one group, as a deployment of several replicas does. `--api-priority N` starts the api and the floor server each in a scheduling group of its own at nice N (bench/priority.ts). Results: bench/results/<UTC timestamp>.json and .md.
 */
import { cpuOverBound } from './cpu-bound';
import 'reflect-metadata';
import { execFileSync, execSync, spawn, ChildProcess } from 'node:child_process';
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { request } from 'node:http';
import { pipeline } from 'node:stream/promises';
import { Readable } from 'node:stream';
import { Client } from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import autocannon from 'autocannon';
import type { Kafka } from 'kafkajs';
import { createKafka, topicWatermarks } from '@flaglens/kafka';
import { eventKey, type FlagEvent } from '@flaglens/contract';
import { EVENT_LOG_COPY_COLUMNS, eventLogCopyChunk } from '@flaglens/projections';
import { generateHistory } from '@flaglens/testing/generate-history';
import { activeSchema, createTestDatabase } from '@flaglens/testing/support/test-database';
import { createTestTopic } from '@flaglens/testing/support/test-kafka';
import { freePort, httpGet } from '@flaglens/testing/support/http';
import { load, loadTool, type LoadTool } from './load';
import {
  cpuSample,
  ingestCpu,
  ingestCpuRows,
  metricSum,
  stageCounter,
  type CpuSample,
  type IngestCpu,
} from './ingest-cpu';
import { MISS_ROUTES, missLoad, type MissLoadResult, type MissRoutes } from './miss';
import { brotliCompressSync, gzipSync } from 'node:zlib';
import { BR_OPTIONS, GZIP_OPTIONS, MIN_COMPRESSED_BYTES } from '../apps/api/src/common/json-body';
import { cliArgs } from '@flaglens/testing/support/cli-args';
import { startBuiltApp } from '@flaglens/testing/support/processes';
import { machineFacts, procCpuSeconds } from './proc';
import { bucketQuantile, histogramBuckets } from './histogram-text';
import { insightsStage, type InsightsFigures } from './insights';
import { benchPeer, peerMarkdown, type PeerResult } from './peer';
import { CHANGE_TYPES, flagChangeEvent, projectCreatedEvent } from './bench-events';
import { parsePriority, setAutogroupNice } from './priority';

const ROOT = join(__dirname, '..');
const cli = cliArgs();
const quick = cli.has('--quick');
/** `--reads-only`: the cached reads right after the ingest (no freshness, rebuild, misses or insights). */
const readsOnly = cli.has('--reads-only');
const argValue = cli.value;
const BULK_EVENTS = Number(argValue('--events') ?? (quick ? 20_000 : 1_000_000));
const READ_SECONDS = Number(argValue('--read-seconds') ?? (quick ? 1 : 15));
const MISS_ROUTES_ARG = argValue('--miss-routes') ?? 'both';
if (
  !(MISS_ROUTES as readonly string[]).includes(MISS_ROUTES_ARG) ||
  (MISS_ROUTES_ARG !== 'both' && !cli.has('--miss-only'))
)
  throw new Error(
    `--miss-routes takes ${MISS_ROUTES.join(', ')}, and only with --miss-only (the full run reads both)`,
  );
const FRESHNESS_SECONDS = quick ? 3 : 20;
const FRESHNESS_RATE = 5000;
/**
 * requests/s the paced miss load offers (`--paced-rate N`): its 50 clients pause between requests. 2,000/s is
 * about six times what the real Unleash answers at most for a project's overview at 50 connections.
 */
const PACED_RATE = Number(argValue('--paced-rate') ?? (quick ? 500 : 2000));
for (const [flag, n] of [
  ['--events', BULK_EVENTS],
  ['--read-seconds', READ_SECONDS],
  ['--paced-rate', PACED_RATE],
] as const)
  if (!Number.isInteger(n) || n <= 0) {
    console.error(`${flag} takes a whole number > 0, not ${JSON.stringify(argValue(flag))}`);
    process.exit(2);
  }
/**
 * `--api-priority N` (a nice value, -20 to 19): the api, and the floor server it is compared with, each start in a
 * session of their own whose scheduling group gets that nice value (bench/priority.ts), as a deployment gives the
 * api's container a CPU weight of its own; none by default (they share the bench's session and its group).
 */
let API_PRIORITY: number | undefined;
try {
  API_PRIORITY = parsePriority('--api-priority', argValue('--api-priority'));
} catch (e) {
  console.error((e as Error).message);
  process.exit(2);
}
/** Markers of the first 2 s at the rate are sent but not counted (warm-up, as before the reads). */
const FRESHNESS_WARMUP_TICKS = 20;
const BIG_PROJECT_FLAGS = quick ? 500 : 5000;
/** Projectors in the ingest's group (`--projectors N`, with `--ingest-only`): several replicas share the partitions. */
const PROJECTORS = Number(argValue('--projectors') ?? 1);
if (!Number.isInteger(PROJECTORS) || PROJECTORS < 1 || (PROJECTORS > 1 && !cli.has('--ingest-only'))) {
  console.error('--projectors takes a whole number ≥ 1, and more than one only with --ingest-only');
  process.exit(2);
}
const BROKERS = process.env.KAFKA_BROKERS ?? '127.0.0.1:9092';
const EVENTS_PER_FLAG = 100;
const FLAGS_PER_BULK_PROJECT = 200;
const BIG_FLAG_EVENTS = 2000;
/** the bulk flag whose list is read as the 100-event list (`flag-7`): the freshness load leaves it alone */
const HUNDRED_EVENT_FLAG = 7;
const NOW = '2026-11-22T09:01:00.000Z';

const bulkFlags = Math.ceil(BULK_EVENTS / EVENTS_PER_FLAG);
const bulkProjects = Math.ceil(bulkFlags / FLAGS_PER_BULK_PROJECT);
const T0 = Date.parse(NOW) - 300 * 86_400_000;

/** Event `i` of the bulk history (pure, so any part can be made again without holding it all). */
function bulkEvent(i: number): FlagEvent {
  if (i < bulkProjects)
    return projectCreatedEvent(i + 1, new Date(T0 + i).toISOString(), `bulk-${i}`, `Bulk ${i}`);
  const k = i - bulkProjects;
  const flag = k % bulkFlags;
  return flagChangeEvent({
    id: i + 1,
    createdAt: new Date(T0 + 10_000 + k * 20).toISOString(),
    name: `flag-${flag}`,
    project: `bulk-${Math.floor(flag / FLAGS_PER_BULK_PROJECT)}`,
    created: Math.floor(k / bulkFlags) === 0,
    type: k * 7,
    user: k,
    env: k,
    n: k,
    team: flag,
  });
}

const bulkCount = bulkProjects + bulkFlags * EVENTS_PER_FLAG;
function bigFlagEvent(j: number): FlagEvent {
  return {
    ...bulkEvent(bulkProjects),
    id: bulkCount + j + 1,
    featureName: 'flag-big',
    createdAt: new Date(T0 + 5_000_000 + j * 1000).toISOString(),
    type: j === 0 ? 'feature-created' : CHANGE_TYPES[j % CHANGE_TYPES.length],
    data: { name: 'flag-big', seq: j },
  };
}
const bigProject = generateHistory({
  seed: 11,
  projects: 1,
  flagsPerProject: BIG_PROJECT_FLAGS,
  events: BIG_PROJECT_FLAGS * 8,
  weeks: 26,
  end: NOW,
  firstId: bulkCount + BIG_FLAG_EVENTS + 1,
});
const total = bulkCount + BIG_FLAG_EVENTS + bigProject.length;
/** Every event of the run, in id order, in chunks. */
function* history(chunk = 5000): Generator<FlagEvent[]> {
  let buf: FlagEvent[] = [];
  const push = (e: FlagEvent) => {
    buf.push(e);
    if (buf.length >= chunk) return true;
    return false;
  };
  for (let i = 0; i < bulkCount; i++) if (push(bulkEvent(i))) yield buf.splice(0);
  for (let j = 0; j < BIG_FLAG_EVENTS; j++) if (push(bigFlagEvent(j))) yield buf.splice(0);
  for (const e of bigProject) if (push(e)) yield buf.splice(0);
  if (buf.length) yield buf;
  buf = [];
}

/** Samples a process's resident set until it exits; returns a function giving the peak in MB. */
function rssPeak(pid: number): () => number {
  let peak = 0;
  const timer = setInterval(() => {
    try {
      const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
      if (m) peak = Math.max(peak, Math.round(Number(m[1]) / 1024));
    } catch {
      clearInterval(timer);
    }
  }, 100);
  timer.unref();
  return () => peak;
}

/** The floor server (bench/floor-server.ts), in its own process, accepting `token`; ready when this resolves. */
async function startFloor(
  token: string,
  children: ChildProcess[],
): Promise<{ port: number; process: ChildProcess }> {
  const port = await freePort();
  const floor = spawn(
    process.execPath,
    [
      '-r',
      'ts-node/register/transpile-only',
      '-r',
      'tsconfig-paths/register',
      join(__dirname, 'floor-server.ts'),
      String(port),
    ],
    {
      cwd: ROOT,
      env: { ...process.env, FLOOR_TOKEN: token },
      stdio: ['ignore', 'pipe', 'inherit'],
      detached: API_PRIORITY !== undefined,
    },
  );
  children.push(floor);
  if (API_PRIORITY !== undefined) setAutogroupNice(floor.pid!, API_PRIORITY);
  await new Promise<void>((resolve, reject) => {
    floor.stdout!.on('data', (d: Buffer) => d.toString().includes('listening') && resolve());
    floor.once('exit', (c) => reject(new Error(`the floor server exited with ${c}`)));
  });
  return { port, process: floor };
}

/** A GET whose body is kept as sent (not decoded), with its Content-Encoding. */
function httpGetRaw(
  port: number,
  path: string,
  headers: Record<string, string>,
): Promise<{ status: number; body: Buffer; encoding?: string; etag?: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          body: Buffer.concat(chunks),
          encoding: res.headers['content-encoding'],
          etag: res.headers.etag,
        }),
      );
    });
    req.on('error', reject);
    req.end();
  });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const pct = (xs: number[], p: number) =>
  xs.length ? [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))] : NaN;

async function produceAll(kafka: Kafka, topic: string): Promise<number> {
  const producer = kafka.producer({ allowAutoTopicCreation: false });
  await producer.connect();
  const t0 = Date.now();
  const inFlight: Promise<unknown>[] = [];
  for (const chunk of history(2000)) {
    inFlight.push(
      producer.send({
        topic,
        acks: -1,
        messages: chunk.map((e) => ({ key: eventKey(e), value: JSON.stringify(e) })),
      }),
    );
    if (inFlight.length >= 4) await inFlight.shift();
  }
  await Promise.all(inFlight);
  await producer.disconnect();
  return (Date.now() - t0) / 1000;
}

async function appliedOf(pg: Client, group: string): Promise<number> {
  const active = await activeSchema(pg);
  const r = await pg.query<{ n: string }>(
    `SELECT coalesce(sum(next_offset), 0) AS n FROM ${active}.projector_offsets WHERE group_id = $1`,
    [group],
  );
  return Number(r.rows[0].n);
}

/** The Postgres backends of the bench's database by pid, with their application_name. */
async function backendsOf(pg: Client): Promise<Map<number, string>> {
  const r = await pg.query<{ pid: number; app: string }>(
    `SELECT pid, application_name AS app FROM pg_stat_activity WHERE datname = current_database()`,
  );
  return new Map(r.rows.map((x) => [Number(x.pid), x.app]));
}

async function main(): Promise<void> {
  const started = new Date();
  execSync('npm run -s build', { cwd: ROOT, stdio: 'inherit' });
  const kafka = createKafka({ brokers: BROKERS, clientId: 'flaglens-bench', log: () => undefined });
  const db = await createTestDatabase('bench');
  const { topic, drop } = await createTestTopic(kafka, 'bench');
  // a group of its own: a group shared with another run's projector (on another topic) is rebalanced with it, and
  // its round-robin assignment can hand this topic's partitions to the other run
  const group = `bench-${randomBytes(3).toString('hex')}`;
  const pg = new Client({ connectionString: db.url });
  await pg.connect();
  const children: ChildProcess[] = [];
  // children in sessions of their own (--api-priority) do not get the terminal's signals: stopped here
  for (const signal of ['SIGINT', 'SIGTERM'] as const)
    process.once(signal, () => {
      for (const c of children) c.kill('SIGTERM');
      process.exit(130);
    });
  const env = {
    DATABASE_URL: db.url,
    KAFKA_BROKERS: BROKERS,
    KAFKA_TOPIC: topic,
    KAFKA_GROUP_ID: group,
    LOG_LEVEL: 'warn',
    FLAGLENS_CLOCK: NOW,
    // no checkpoints for reads as of an instant (their own bench: bench:as-of): making them would take the
    // CPU of the reads and the ingest measured here
    AS_OF_CHECKPOINT_EVENTS: '0',
  };
  const result: Result = {
    startedAt: started.toISOString(),
    quick,
    machine: {},
    ingest: {},
    rebuild: {},
    freshness: {},
    reads: [],
  };
  try {
    console.log(
      `[bench] ${total} events (bulk ${bulkCount}, a ${BIG_FLAG_EVENTS}-event flag, a ${BIG_PROJECT_FLAGS}-flag project of ${bigProject.length}); topic ${topic}, database ${db.name}`,
    );
    const produceSeconds = await produceAll(kafka, topic);
    console.log(`[bench] produced in ${produceSeconds.toFixed(1)} s`);

    // ingest: the projector (or PROJECTORS of them, one group) from offset 0 until lag 0
    const projectorPort = await freePort();
    const projector = startBuiltApp('projector', { ...env, PROJECTOR_PORT: String(projectorPort) });
    children.push(projector);
    const projectorPorts = [projectorPort];
    const projectorPids = [projector.pid!];
    for (let i = 1; i < PROJECTORS; i++) {
      const port = await freePort();
      const another = startBuiltApp('projector', { ...env, PROJECTOR_PORT: String(port) });
      children.push(another);
      projectorPorts.push(port);
      projectorPids.push(another.pid!);
    }
    const projectorPeaks = projectorPids.map(rssPeak);
    const projectorPeak = () => Math.max(...projectorPeaks.map((peak) => peak()));
    const target = (await topicWatermarks(kafka, topic)).reduce((n, p) => n + p.high, 0);
    let firstAt = 0;
    const t0 = Date.now();
    // CPU of the projector and of Postgres from the first batch seen to lag 0 (per event: less sensitive to
    // the other tenants of a shared machine than events/s)
    let cpuBefore: CpuSample | undefined;
    let cpuAfter: CpuSample | undefined;
    for (let applied = 0; applied < target;) {
      applied = await appliedOf(pg, group);
      if (applied > 0 && !firstAt) {
        firstAt = Date.now();
        cpuBefore = await cpuSample(pg, projectorPids, applied);
      }
      if (applied >= target) cpuAfter = await cpuSample(pg, projectorPids, applied);
      if (Date.now() - t0 > 30 * 60_000) throw new Error('ingest did not finish in 30 minutes');
      if (applied < target) await sleep(50);
    }
    const ingestSeconds = (Date.now() - firstAt) / 1000;
    // every projector's scrape, joined: the figures below sum them
    const metricsText = (
      await Promise.all(projectorPorts.map(async (p) => (await httpGet(p, '/metrics')).text))
    ).join('\n');
    result.ingestStages = stageSeconds(metricsText);
    result.ingestBatches = batchCounts(metricsText);
    if (cpuBefore && cpuAfter) result.ingestCpu = ingestCpu(cpuBefore, cpuAfter, metricsText, target);
    const eventsPerSec = Math.round(target / ingestSeconds);
    console.log(
      `[bench] projected ${target} in ${ingestSeconds.toFixed(1)} s (${eventsPerSec}/s from the first batch to lag 0)${PROJECTORS > 1 ? ` by ${PROJECTORS} projectors` : ''}`,
    );
    if (result.ingestCpu) {
      const c = result.ingestCpu;
      console.log(
        `[bench] ingest CPU µs/event: projector ${c.projectorUsPerEvent}, Postgres backends ${c.postgresBackendsUsPerEvent}, every postgres process ${c.postgresAllUsPerEvent} (over ${c.events} events)`,
      );
      console.log(
        `[bench] projector by thread, µs/event: main ${c.projectorMainUsPerEvent}, helpers (GC, compiler) ${c.projectorHelpersUsPerEvent}; main thread on a CPU ${share(c.mainCoreShare)} of the time; machine busy ${busyShare(c)} of all cores`,
      );
      console.log(
        ingestCpuRows(c)
          .map((l) => `[bench]   ${l}`)
          .join('\n'),
      );
    }

    // the ceiling: the same rows COPY'd into an empty copy of the event-log table, one stream; the COPY text
    // is built before the clock starts, so this measures Postgres alone
    const active = await activeSchema(pg);
    await pg.query(`CREATE TABLE public.event_log_ceiling (LIKE ${active}.event_log INCLUDING ALL)`);
    // the rows the projector stores: each body the value produced to Kafka (JSON.stringify of the event)
    const copyText: Buffer[] = [];
    let n = 0;
    for (const chunk of history(5000)) {
      copyText.push(
        eventLogCopyChunk(
          chunk.map((e) => ({
            event: e,
            knownType: true,
            topic,
            partition: 0,
            offset: n++,
            raw: Buffer.from(JSON.stringify(e)),
          })),
        ),
      );
    }
    // three loads into the emptied table, the median reported: one load varies by ±15% on a shared machine
    const copyRuns: number[] = [];
    for (let run = 0; run < 3; run++) {
      await pg.query('TRUNCATE public.event_log_ceiling');
      await pg.query('CHECKPOINT'); // each load starts from the same state (no dirty buffers of the last)
      const c0 = Date.now();
      await pipeline(
        Readable.from(copyText),
        pg.query(copyFrom(`COPY public.event_log_ceiling (${EVENT_LOG_COPY_COLUMNS}) FROM STDIN`)),
      );
      copyRuns.push(Math.round(total / ((Date.now() - c0) / 1000)));
    }
    copyText.length = 0;
    await pg.query('DROP TABLE public.event_log_ceiling');
    const copyCeilingPerSec = [...copyRuns].sort((a, b) => a - b)[1];
    result.ingestCeilingRuns = copyRuns;
    result.ingest = {
      events: target,
      produceSeconds,
      seconds: ingestSeconds,
      eventsPerSec,
      copyCeilingPerSec,
      ratio: Number((eventsPerSec / copyCeilingPerSec).toFixed(3)),
      projectorPeakRssMb: projectorPeak(),
    };
    console.log(
      `[bench] COPY ceiling ${copyCeilingPerSec}/s (median of ${copyRuns.join(', ')}); ratio ${result.ingest.ratio}; projector peak RSS ${result.ingest.projectorPeakRssMb} MB`,
    );
    console.log(
      `[bench] ingest stages (s): ${JSON.stringify(result.ingestStages)}; batches ${JSON.stringify(result.ingestBatches)}`,
    );
    if (cli.has('--ingest-only')) return; // a sweep of the ingest alone (no result file)

    // the api, with authentication on: a token for the initial admin, issued with the CLI
    const port = await freePort();
    const api = startBuiltApp('api', { ...env, PORT: String(port) }, undefined, API_PRIORITY !== undefined);
    children.push(api);
    if (API_PRIORITY !== undefined) {
      setAutogroupNice(api.pid!, API_PRIORITY);
      result.apiPriority = API_PRIORITY;
      console.log(
        `[bench] the api in a scheduling group of its own at nice ${API_PRIORITY}, as the floor server`,
      );
    }
    const token = execFileSync(
      process.execPath,
      [join(ROOT, 'bin', 'flaglens.js'), 'token', 'create', '--user', 'admin', '--name', 'bench'],
      { cwd: ROOT, env: { ...process.env, ...env } },
    )
      .toString()
      .trim();
    const headers = { authorization: token };
    for (
      let i = 0;
      i < 120 && (await httpGet(port, '/health/live').catch(() => ({ status: 0 }))).status !== 200;
      i++
    )
      await sleep(500);

    // reads that miss (bench/miss.ts): random flags and projects while the projector ingests at the rate
    const missRun = {
      kafka,
      topic,
      port,
      headers,
      apiPid: api.pid,
      projectorPid: projector.pid,
      backends: () => backendsOf(pg),
      applied: () => appliedOf(pg, group),
      databaseUrl: db.url,
      quick,
      rate: FRESHNESS_RATE,
      connections: 50,
      seconds: READ_SECONDS,
      pacedRate: PACED_RATE,
      now: NOW,
    };
    if (cli.has('--miss-only')) {
      // a sweep of the miss load alone (no result file): the api just started, nothing cached
      await missLoad({
        ...missRun,
        routes: MISS_ROUTES_ARG as MissRoutes,
        floorPort: (await startFloor(token, children)).port,
        tool: loadTool(),
      });
      return;
    }

    if (!readsOnly) {
      // freshness at a steady rate: markers every 100 ms among FRESHNESS_RATE events/s
      // and the projector's batches meanwhile (their count, size and duration): how much of a marker's time is
      // the batch transaction that applies it
      const metricsBefore = (await httpGet(projectorPort, '/metrics')).text;
      result.freshness = await freshness(kafka, topic, port, headers, pg);
      const metricsAfter = (await httpGet(projectorPort, '/metrics')).text;
      result.freshnessBatches = batchesDuring(batchDurations(metricsBefore), batchDurations(metricsAfter));
      result.freshnessStageMsPerBatch = stageMsPerBatch(
        stageSeconds(metricsBefore, 6),
        stageSeconds(metricsAfter, 6),
        result.freshnessBatches.batches,
      );
      console.log(
        `[bench] freshness at ${FRESHNESS_RATE}/s: p50 ${result.freshness.p50Ms} ms, p99 ${result.freshness.p99Ms} ms (${result.freshness.samples} markers); split p50/p99: produce ${result.freshness.produceP50Ms}/${result.freshness.produceP99Ms}, queue ${result.freshness.queueP50Ms}/${result.freshness.queueP99Ms}, transaction to visible ${result.freshness.visibleP50Ms}/${result.freshness.visibleP99Ms} ms; batches meanwhile: ${JSON.stringify(result.freshnessBatches)}, ms per batch by stage ${JSON.stringify(result.freshnessStageMsPerBatch)}`,
      );
    }

    if (cli.has('--freshness-only')) return; // a sweep of ingest and freshness alone (no result file)

    // reads
    const bigProjectId = 'default';
    const endpoints: [string, string, string?][] = [
      ['GET /api/admin/events/{100-event flag}', `/api/admin/events/flag-${HUNDRED_EVENT_FLAG}`],
      [`GET /api/admin/events/{${BIG_FLAG_EVENTS}-event flag}`, '/api/admin/events/flag-big'],
      [
        `GET /api/admin/projects/{${FLAGS_PER_BULK_PROJECT}-flag project}/overview`,
        '/api/admin/projects/bulk-0/overview',
      ],
      [
        `GET /api/admin/projects/{${BIG_PROJECT_FLAGS}-flag project}/overview`,
        `/api/admin/projects/${bigProjectId}/overview`,
      ],
      ['GET /api/admin/user/profile', '/api/admin/user/profile'],
      ['GET /api/admin/dashboard/executive', '/api/admin/dashboard/executive'],
      // compressed once per cache entry, chosen by Accept-Encoding; the floor sends a body of the compressed size
      [
        `GET /api/admin/events/{${BIG_FLAG_EVENTS}-event flag}, Accept-Encoding: gzip, br`,
        '/api/admin/events/flag-big',
        'gzip, br',
      ],
      [
        `GET /api/admin/events/{${BIG_FLAG_EVENTS}-event flag}, Accept-Encoding: gzip`,
        '/api/admin/events/flag-big',
        'gzip',
      ],
    ];
    // what compression gives and costs, per body: the api's zlib settings, on this machine, in the bench's
    // process (the api computes each form once per cache entry, in zlib's thread pool)
    result.compression = [];
    for (const [endpoint, path, encoding] of endpoints) {
      if (encoding) continue;
      const body = (await httpGetRaw(port, path, headers)).body;
      if (body.length < MIN_COMPRESSED_BYTES) continue;
      const cost = (f: () => Buffer): [Buffer, number] => {
        const times: number[] = [];
        let out: Buffer = Buffer.alloc(0);
        for (let i = 0; i < 5; i++) {
          const t = process.hrtime.bigint();
          out = f();
          times.push(Number(process.hrtime.bigint() - t) / 1e6);
        }
        return [out, Number(pct(times, 50).toFixed(2))];
      };
      const [gz, gzipMs] = cost(() => gzipSync(body, GZIP_OPTIONS));
      const [br, brMs] = cost(() => brotliCompressSync(body, BR_OPTIONS));
      const row = {
        endpoint,
        bytes: body.length,
        gzipBytes: gz.length,
        gzipRatio: Number((body.length / gz.length).toFixed(1)),
        gzipMs,
        brBytes: br.length,
        brRatio: Number((body.length / br.length).toFixed(1)),
        brMs,
      };
      result.compression.push(row);
      console.log(
        `[bench] compression of ${endpoint} (${row.bytes} B): gzip ${row.gzipBytes} B (×${row.gzipRatio}) in ${gzipMs} ms, br ${row.brBytes} B (×${row.brRatio}) in ${brMs} ms`,
      );
    }
    // the floor: a bare authenticated Fastify route (bench/floor-server.ts) answering a body of the endpoint's
    // size, loaded by the same tool with the same connections, taking turns with the endpoint
    const { port: floorPort, process: floor } = await startFloor(token, children);
    const tool = loadTool();
    result.readsTool = tool;
    console.log(`[bench] reads loaded with ${tool}; floor server on port ${floorPort}`);
    const readConnections = quick ? [50] : [10, 50];
    for (const [endpoint, path, encoding] of endpoints) {
      const reqHeaders = encoding ? { ...headers, 'accept-encoding': encoding } : headers;
      const probe = await httpGetRaw(port, path, reqHeaders);
      if (probe.status !== 200) {
        console.log(`[bench] ${endpoint}: ${probe.status}, skipped`);
        result.reads.push({
          endpoint,
          connections: 0,
          reqPerSec: 0,
          p50Ms: 0,
          p99Ms: 0,
          non2xx: 1,
          skipped: `status ${probe.status}`,
        });
        continue;
      }
      const bytes = probe.body.length;
      const url = `http://127.0.0.1:${port}${path}`;
      const floorUrl = `http://127.0.0.1:${floorPort}/floor/${bytes}`;
      await load(tool, url, reqHeaders, 10, 1); // warm-up
      await load(tool, floorUrl, headers, 10, 1);
      for (const connections of readConnections) {
        // CPU per request of each server process (utime + stime over the load ÷ requests): what a read costs,
        // less distorted than req/s by what else the machine runs
        const fc0 = procCpuSeconds(floor.pid!);
        const f = await load(tool, floorUrl, headers, connections, READ_SECONDS);
        const fcpu = procCpuSeconds(floor.pid!) - fc0;
        const ac0 = procCpuSeconds(api.pid!);
        const r = await load(tool, url, reqHeaders, connections, READ_SECONDS);
        const acpu = procCpuSeconds(api.pid!) - ac0;
        const usPerRequest = (cpu: number, n: number | undefined) =>
          n && Number.isFinite(cpu) ? Math.round((cpu * 1e6) / n) : undefined;
        const row: ReadRow = {
          endpoint,
          connections,
          tool,
          bytes,
          ...(probe.encoding ? { encoding: probe.encoding } : {}),
          reqPerSec: r.reqPerSec,
          p50Ms: r.p50Ms,
          p99Ms: r.p99Ms,
          non2xx: r.non2xx,
          floorReqPerSec: f.reqPerSec,
          floorP99Ms: f.p99Ms,
          floorRatio: Number((r.reqPerSec / f.reqPerSec).toFixed(2)),
          cpuUsPerRequest: usPerRequest(acpu, r.requests),
          floorCpuUsPerRequest: usPerRequest(fcpu, f.requests),
        };
        result.reads.push(row);
        console.log(
          `[bench] ${endpoint} c=${connections} (${tool}, ${bytes} bytes${probe.encoding ? ` ${probe.encoding}` : ''}): ${row.reqPerSec} req/s, p50 ${row.p50Ms} ms, p99 ${row.p99Ms} ms, non-2xx ${row.non2xx}; floor ${f.reqPerSec} req/s, p99 ${f.p99Ms} ms, ratio ${row.floorRatio}; CPU µs/request ${row.cpuUsPerRequest ?? '?'}, floor ${row.floorCpuUsPerRequest ?? '?'}`,
        );
      }
    }

    // the cached reads' CPU per request against the floor's, measured side by side: a regression fails the run
    const over = cpuOverBound(result.reads);
    for (const line of over) console.error(`[bench] cached read past its CPU bound: ${line}`);
    if (over.length > 0) process.exitCode = 1;

    if (readsOnly) return; // a sweep of the cached reads alone (no result file)

    // rebuild of the same history, by the operator command (compiled), while the api and projector run and
    // the api is under read load (50 connections on a flag's event list and a project's overview)
    const before = await Promise.all(
      [`/api/admin/events/flag-${HUNDRED_EVENT_FLAG}`, '/api/admin/projects/bulk-0/overview'].map((p) =>
        httpGet(port, p, headers),
      ),
    );
    const underLoad = [
      autocannon({
        url: `http://127.0.0.1:${port}/api/admin/events/flag-${HUNDRED_EVENT_FLAG}`,
        headers,
        connections: 25,
        duration: 600,
      }),
      autocannon({
        url: `http://127.0.0.1:${port}/api/admin/projects/bulk-0/overview`,
        headers,
        connections: 25,
        duration: 600,
      }),
    ];
    const rb0 = Date.now();
    const rebuild = spawn(
      process.execPath,
      [join(ROOT, 'bin', 'flaglens.js'), 'rebuild', '--json', '--drop-old-after', '1'],
      { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] },
    );
    const rebuildPeak = rssPeak(rebuild.pid!);
    let out = '';
    rebuild.stdout!.on('data', (d: Buffer) => (out += d.toString()));
    const code = await new Promise<number | null>((r) => rebuild.once('exit', r));
    for (const run of underLoad) (run as unknown as { stop(): void }).stop();
    const loads = await Promise.all(underLoad);
    if (code !== 0) throw new Error(`rebuild exited with ${code}: ${out}`);
    await sleep(6000); // the api follows the switch within its 5 s check at the latest
    const after = await Promise.all(
      [`/api/admin/events/flag-${HUNDRED_EVENT_FLAG}`, '/api/admin/projects/bulk-0/overview'].map((p) =>
        httpGet(port, p, headers),
      ),
    );
    const rb = JSON.parse(out.trim().split('\n').pop()!) as {
      events: number;
      seconds: number;
      switched: boolean;
    };
    result.rebuild = {
      events: rb.events,
      seconds: rb.seconds,
      processSeconds: (Date.now() - rb0) / 1000,
      readsDuring: loads.reduce((n, l) => n + l.requests.total, 0),
      failedReadsDuring: loads.reduce((n, l) => n + l.non2xx + l.errors + l.timeouts, 0),
      identicalAfter: before.every((b, i) => b.text === after[i].text) ? 1 : 0,
      eventsPerSec: Math.round(rb.events / rb.seconds),
      switched: rb.switched ? 1 : 0,
      peakRssMb: rebuildPeak(),
    };
    console.log(
      `[bench] rebuild: ${rb.events} events in ${rb.seconds.toFixed(1)} s (${result.rebuild.eventsPerSec}/s), peak RSS ${result.rebuild.peakRssMb} MB`,
    );

    // reads that miss, after the cached reads, against the same floor server and with the same tool
    result.miss = await missLoad({ ...missRun, floorPort, tool });

    // the uncached insights over 2 years × 200 projects, from the stored weeks and computed in full (bench/insights.ts)
    result.insights = await insightsStage({ events: quick ? 20_000 : 200_000, runs: quick ? 3 : 7 });
    // --peer: the real Unleash, loaded through its API and fed to a fresh flaglens, read side by side (bench/peer.ts)
    if (cli.has('--peer'))
      result.peer = await benchPeer({
        quick,
        seconds: READ_SECONDS,
        connections: readConnections,
        tool,
        brokers: BROKERS,
        log: (m) => console.log(`[bench] peer: ${m}`),
      });

    result.machine = {
      ...(await machineFacts(pg)),
      // the release scripts/infra.sh starts (KAFKA_VERSION or its default)
      kafka: execFileSync('bash', [join(ROOT, 'scripts', 'infra.sh'), 'version'], {
        encoding: 'utf8',
      }).trim(),
    };
    const stamp = started.toISOString().replace(/[:.]/g, '-');
    mkdirSync(join(__dirname, 'results'), { recursive: true });
    const file = join(__dirname, 'results', `${stamp}${quick ? '-quick' : ''}.json`);
    writeFileSync(file, JSON.stringify(result, null, 2) + '\n');
    const md = summary(result, argValue('--compare'));
    writeFileSync(file.replace(/\.json$/, '.md'), md);
    console.log(`[bench] wrote ${file}\n\n${md}`);
  } finally {
    for (const c of children) c.kill('SIGTERM');
    await sleep(1500);
    await pg.end();
    await drop();
    await db.drop();
  }
}

async function freshness(
  kafka: Kafka,
  topic: string,
  port: number,
  headers: Record<string, string>,
  pg: Client,
): Promise<Record<string, number>> {
  const producer = kafka.producer({ allowAutoTopicCreation: false });
  await producer.connect();
  const latencies: number[] = [];
  /** marker ticks and latencies, for the slowest ones in the log */
  const samples: { tick: number; ms: number }[] = [];
  const pending = new Map<string, number>();
  /** per counted marker: sent, acknowledged by the broker, seen through the api (Date.now()) */
  const times = new Map<string, { sentAt: number; ackAt?: number; seenAt?: number }>();
  let stop = false;
  const poller = (async () => {
    while (!stop || pending.size > 0) {
      for (const [flag, sentAt] of [...pending]) {
        const body = (await httpGet(port, `/api/admin/events/${flag}`, headers)).json() as {
          totalEvents: number;
        };
        if (body.totalEvents > 0) {
          const tick = Number(flag.slice('marker-'.length));
          // the first ticks warm the pipeline up (a projector idle since the ingest, an api just started)
          if (tick >= FRESHNESS_WARMUP_TICKS) {
            latencies.push(Date.now() - sentAt);
            times.get(flag)!.seenAt = Date.now();
          }
          samples.push({ tick, ms: Date.now() - sentAt });
          pending.delete(flag);
        } else if (Date.now() - sentAt > 30_000) pending.delete(flag);
      }
      await sleep(2);
    }
  })();
  let id = 50_000_000;
  const tickMs = 100;
  const perTick = Math.round((FRESHNESS_RATE * tickMs) / 1000);
  const end = Date.now() + FRESHNESS_SECONDS * 1000 + FRESHNESS_WARMUP_TICKS * tickMs;
  for (let tick = 0; Date.now() < end; tick++) {
    const t = Date.now();
    const messages = Array.from({ length: perTick - 1 }, (_, i) => {
      const k = (tick * perTick + i) % (bulkFlags * 50);
      // every bulk flag but the one whose 100-event list the reads load, which must stay 100 events long
      const e = {
        ...bulkEvent(bulkProjects + (k % bulkFlags === HUNDRED_EVENT_FLAG ? k + 1 : k)),
        id: id++,
        createdAt: new Date(Date.parse(NOW) - 60_000).toISOString(),
      };
      return { key: eventKey(e), value: JSON.stringify(e) };
    });
    const marker = `marker-${tick}`;
    const m = {
      ...bulkEvent(bulkProjects),
      id: id++,
      featureName: marker,
      createdAt: new Date(Date.parse(NOW) - 60_000).toISOString(),
    };
    messages.push({ key: marker, value: JSON.stringify(m) });
    pending.set(marker, Date.now());
    const sent = { sentAt: Date.now() } as { sentAt: number; ackAt?: number };
    if (tick >= FRESHNESS_WARMUP_TICKS) times.set(marker, sent);
    await producer.send({ topic, acks: -1, messages });
    sent.ackAt = Date.now();
    await sleep(Math.max(0, tickMs - (Date.now() - t)));
  }
  stop = true;
  await poller;
  await producer.disconnect();
  const split = await freshnessSplit(pg, times);
  const slowest = [...samples].sort((a, b) => b.ms - a.ms).slice(0, 5);
  console.log(`[bench] freshness: slowest markers ${slowest.map((x) => `#${x.tick} ${x.ms} ms`).join(', ')}`);
  return {
    rate: FRESHNESS_RATE,
    samples: latencies.length,
    p50Ms: pct(latencies, 50),
    p99Ms: pct(latencies, 99),
    ...split,
  };
}

/**
 * Where a marker's time goes, from the same clock (the projector, Postgres and the bench share the machine):
 * produce (send until the broker's acknowledgement, acks=-1), queue (the acknowledgement until its batch's
 * transaction began: the fetch, the partition's batch before it, a free slot; `recorded_at` is the transaction's
 * now()), and visible (the transaction's start until the api answers it: the transaction, its NOTIFY reaching
 * the api, the poller's next round); p50 and p99 of each.
 */
async function freshnessSplit(
  pg: Client,
  times: Map<string, { sentAt: number; ackAt?: number; seenAt?: number }>,
): Promise<Record<string, number>> {
  const active = await activeSchema(pg);
  const r = await pg.query<{ feature_name: string; ms: string }>(
    `SELECT feature_name, (extract(epoch FROM recorded_at) * 1000)::float8 AS ms
       FROM ${active}.event_log WHERE feature_name = ANY($1)`,
    [[...times.keys()]],
  );
  const produce: number[] = [];
  const queue: number[] = [];
  const visible: number[] = [];
  for (const row of r.rows) {
    const t = times.get(row.feature_name);
    const began = Number(row.ms);
    if (t?.ackAt === undefined || t.seenAt === undefined) continue;
    produce.push(t.ackAt - t.sentAt);
    queue.push(Math.max(0, Math.round(began - t.ackAt)));
    visible.push(Math.max(0, Math.round(t.seenAt - began)));
  }
  return {
    produceP50Ms: pct(produce, 50),
    produceP99Ms: pct(produce, 99),
    queueP50Ms: pct(queue, 50),
    queueP99Ms: pct(queue, 99),
    visibleP50Ms: pct(visible, 50),
    visibleP99Ms: pct(visible, 99),
  };
}

interface ReadRow {
  endpoint: string;
  connections: number;
  /** the load generator that produced the figures */
  tool?: LoadTool;
  /** the body's size as sent (compressed when `encoding`) */
  bytes?: number;
  encoding?: string;
  /** the floor (bench/floor-server.ts) for a body of `bytes`, same tool and connections, same run */
  floorReqPerSec?: number;
  /** the floor's own p99 in the same turn: what the machine allows at these connections */
  floorP99Ms?: number;
  floorRatio?: number;
  /** the api's CPU µs per request during the load (/proc/<pid>/stat), and the floor server's */
  cpuUsPerRequest?: number;
  floorCpuUsPerRequest?: number;
  reqPerSec: number;
  p50Ms: number;
  p99Ms: number;
  non2xx: number;
  skipped?: string;
}
interface Result {
  startedAt: string;
  quick: boolean;
  machine: Record<string, unknown>;
  /** `--api-priority`: the autogroup nice value of the api and the floor server, each in a session of its own */
  apiPriority?: number;
  ingest: Record<string, number>;
  /** the three loads of the COPY ceiling, events/s (`ingest.copyCeilingPerSec` is their median) */
  ingestCeilingRuns?: number[];
  rebuild: Record<string, number>;
  freshness: Record<string, number>;
  /** the projector's batches during the freshness stage (bench `batchesDuring`) */
  freshnessBatches?: ReturnType<typeof batchesDuring>;
  /** milliseconds per partition batch in each stage of the transactions during the freshness stage (the batches
   * of a group share their transaction: its stages are divided among them) */
  freshnessStageMsPerBatch?: Record<string, number>;
  reads: ReadRow[];
  readsTool?: LoadTool;
  /** reads of many flags and projects at random while the projector ingests (bench/miss.ts) */
  miss?: MissLoadResult;
  /** each large body's gzip and br forms (the api's settings): sizes, ratios, and the CPU ms to compute them */
  compression?: {
    endpoint: string;
    bytes: number;
    gzipBytes: number;
    gzipRatio: number;
    gzipMs: number;
    brBytes: number;
    brRatio: number;
    brMs: number;
  }[];
  /** seconds the projector's batch transactions spent per stage during ingest (where the time goes) */
  ingestStages?: Record<string, number>;
  /** the projector's partition batches during ingest: how many, and their mean size in events */
  ingestBatches?: { count: number; meanEvents: number };
  /** the uncached insights report over 2 years × 200 projects (bench/insights.ts) */
  insights?: InsightsFigures;
  /** --peer: flaglens against the real Unleash on the same events (bench/peer.ts) */
  peer?: PeerResult;
  /** CPU µs per event of the ingest: the projector, Postgres, and per stage (bench/ingest-cpu.ts) */
  ingestCpu?: IngestCpu;
}

/** Count and mean size of the projector's batches (flaglens_projector_batch_size_events). */
function batchCounts(text: string): { count: number; meanEvents: number } {
  // summed over the scrapes in `text` (one per projector)
  const value = (suffix: string) => metricSum(text, `flaglens_projector_batch_size_events_${suffix}`);
  const count = value('count');
  return { count, meanEvents: count > 0 ? Math.round(value('sum') / count) : 0 };
}

interface BatchDurations {
  count: number;
  sum: number;
  events: number;
  /** cumulative count per upper bound (seconds), summed over partitions */
  buckets: Map<number, number>;
}

/** The projector's batch durations (flaglens_projector_batch_duration_seconds) and sizes, over all partitions. */
function batchDurations(text: string): BatchDurations {
  const d: BatchDurations = { count: 0, sum: 0, events: 0, buckets: new Map() };
  for (const m of text.matchAll(
    /^flaglens_projector_batch_duration_seconds_(sum|count)(?:\{([^}]*)\})? ([0-9.e+-]+)$/gm,
  )) {
    const v = Number(m[3]);
    if (m[1] === 'sum') d.sum += v;
    else d.count += v;
  }
  d.buckets = histogramBuckets(text, 'flaglens_projector_batch_duration_seconds');
  for (const m of text.matchAll(/^flaglens_projector_batch_size_events_sum(?:\{[^}]*\})? ([0-9.e+-]+)$/gm))
    d.events += Number(m[1]);
  return d;
}

/** The batches between two readings: how many, their mean size, mean duration and p99 (a bucket's bound). */
function batchesDuring(
  a: BatchDurations,
  b: BatchDurations,
): { batches: number; meanEvents: number; meanMs: number; p99AtMostMs: number } {
  const count = b.count - a.count;
  if (count <= 0) return { batches: 0, meanEvents: 0, meanMs: 0, p99AtMostMs: 0 };
  const p99 = bucketQuantile(a.buckets, b.buckets, 0.99) ?? Infinity;
  return {
    batches: count,
    meanEvents: Math.round((b.events - a.events) / count),
    meanMs: Math.round(((b.sum - a.sum) / count) * 1000),
    p99AtMostMs: p99 === Infinity ? -1 : Math.round(p99 * 1000),
  };
}

/** The projector's per-stage seconds (flaglens_projector_stage_seconds_total), largest first. */
function stageSeconds(text: string, digits = 2): Record<string, number> {
  return Object.fromEntries(
    [...stageCounter(text, 'flaglens_projector_stage_seconds_total')]
      .map(([stage, s]): [string, number] => [stage, Number(s.toFixed(digits))])
      .sort((a, b) => b[1] - a[1]),
  );
}

/** Milliseconds per batch spent in each stage between two readings of stageSeconds (stages over 0.05 ms). */
function stageMsPerBatch(
  before: Record<string, number>,
  after: Record<string, number>,
  batches: number,
): Record<string, number> {
  if (batches <= 0) return {};
  const rows = Object.entries(after)
    .map(([stage, s]): [string, number] => [stage, ((s - (before[stage] ?? 0)) * 1000) / batches])
    .filter(([, ms]) => ms >= 0.05)
    .sort((a, b) => b[1] - a[1]);
  return Object.fromEntries(rows.map(([stage, ms]) => [stage, Number(ms.toFixed(2))]));
}

const met = (ok: boolean) => (ok ? 'met' : 'not met');
const share = (x: number) => `${Math.round(x * 100)}%`;
const busyShare = (c: IngestCpu) => (c.machineBusyShare !== undefined ? share(c.machineBusyShare) : '?');
/** The projector's CPU by thread (bench/ingest-cpu.ts), one cell. */
const threadSplit = (c: IngestCpu) =>
  `${c.projectorMainUsPerEvent}; ${c.projectorHelpersUsPerEvent}; ${share(c.mainCoreShare)}; ${busyShare(c)}`;

function summary(r: Result, compareWith?: string): string {
  const prev: Result | undefined = compareWith ? JSON.parse(readFileSync(compareWith, 'utf8')) : undefined;
  const delta = (now: number, before?: number) =>
    before ? ` (${now >= before ? '+' : ''}${(((now - before) / before) * 100).toFixed(0)}%)` : '';
  // goals of issue 16: ≥ 50% of the floor (p99 ≤ 5 ms) for the profile, the overview of 200 flags and a 100-event
  // list; ≥ 80% for the uncompressed 2,000-event list; at 50 connections
  const readTarget = (x: ReadRow) => {
    if (x.connections !== 50 || x.floorRatio === undefined) return '';
    const small =
      x.endpoint.includes('100-event') ||
      x.endpoint.includes(`${FLAGS_PER_BULK_PROJECT}-flag`) ||
      x.endpoint.includes('profile');
    if (small && !x.encoding)
      return `≥ 0.5 of the floor, p99 ≤ 5 ms: ${met(x.floorRatio >= 0.5 && x.p99Ms <= 5 && x.non2xx === 0)}`;
    if (x.endpoint.includes(`${BIG_FLAG_EVENTS}-event`) && !x.encoding)
      return `≥ 0.8 of the floor: ${met(x.floorRatio >= 0.8 && x.non2xx === 0)}`;
    return '';
  };
  return [
    `# flaglens bench${r.quick ? " (quick: small data, one threshold: the cached reads' CPU guard)" : ''}`,
    '',
    `${r.startedAt}; ${r.machine.cores} cores, ${r.machine.cpu}, Node ${r.machine.node}, Postgres ${r.machine.postgres}, Kafka ${r.machine.kafka}${r.apiPriority !== undefined ? `; the api and the floor each in a scheduling group of its own at nice ${r.apiPriority} (--api-priority)` : ''}`,
    '',
    '| figure | value | target |',
    '|---|---|---|',
    `| ingest events/s (first batch → lag 0) | ${r.ingest.eventsPerSec}${delta(r.ingest.eventsPerSec, prev?.ingest.eventsPerSec)} | |`,
    `| COPY ceiling events/s (same run; median of ${(r.ingestCeilingRuns ?? []).join(', ')}) | ${r.ingest.copyCeilingPerSec} | |`,
    `| ingest / ceiling | ${r.ingest.ratio} | ≥ 0.65: ${met(r.ingest.ratio >= 0.65)} |`,
    `| projector peak RSS | ${r.ingest.projectorPeakRssMb} MB | ≤ 300 MB: ${met(r.ingest.projectorPeakRssMb <= 300)} |`,
    `| rebuild of ${r.rebuild.events} events | ${r.rebuild.seconds?.toFixed(1)} s, ${r.rebuild.eventsPerSec}/s, peak RSS ${r.rebuild.peakRssMb} MB | 1M ≤ 60 s: ${r.quick ? 'n/a' : met(r.rebuild.seconds <= 60)} |`,
    `| reads during the rebuild (50 connections) | ${r.rebuild.readsDuring} requests, ${r.rebuild.failedReadsDuring} failed; answers after the switch identical: ${r.rebuild.identicalAfter ? 'yes' : 'NO'} | 0 failed, identical: ${met(r.rebuild.failedReadsDuring === 0 && r.rebuild.identicalAfter === 1)} |`,
    `| freshness at ${r.freshness.rate} events/s (p50, p99; markers after a 2 s warm-up at that rate) | ${r.freshness.p50Ms} ms, ${r.freshness.p99Ms} ms | p99 ≤ 100 ms: ${met(r.freshness.p99Ms <= 100)} |`,
    ...(r.freshness.queueP99Ms !== undefined
      ? [
          `| its parts (p50, p99): produce (send → broker ack), queue (ack → the transaction's start), transaction → visible through the api | ${r.freshness.produceP50Ms}, ${r.freshness.produceP99Ms}; ${r.freshness.queueP50Ms}, ${r.freshness.queueP99Ms}; ${r.freshness.visibleP50Ms}, ${r.freshness.visibleP99Ms} ms | |`,
        ]
      : []),
    ...(r.freshnessBatches
      ? [
          `| the projector's batches during it: count, mean events, mean duration, p99 at most (bucket bound) | ${r.freshnessBatches.batches}, ${r.freshnessBatches.meanEvents}, ${r.freshnessBatches.meanMs} ms, ${r.freshnessBatches.p99AtMostMs} ms | |`,
        ]
      : []),
    ...(r.ingestStages
      ? [
          `| ingest: seconds per stage of the batch transactions | ${Object.entries(r.ingestStages)
            .map(([k, v]) => `${k} ${v}`)
            .join(
              ', ',
            )}${r.ingestBatches ? `; ${r.ingestBatches.count} batches of ${r.ingestBatches.meanEvents} events on average` : ''} | |`,
        ]
      : []),
    ...(r.insights
      ? [
          `| insights report, uncached, ${r.insights.events} events over ${r.insights.weeks} weeks (${r.insights.bytes} B): median of ${r.insights.storedRunsMs.length}, from stored weeks; computed in full | ${r.insights.storedMedianMs} ms (CPU: node ${r.insights.storedCpuMs.node} ms, Postgres ${r.insights.storedCpuMs.db} ms); ${r.insights.referenceMedianMs} ms (CPU: node ${r.insights.referenceCpuMs.node} ms, Postgres ${r.insights.referenceCpuMs.db} ms); identical: ${r.insights.identical ? 'yes' : 'NO'}; store ${r.insights.storeMs} ms | ≤ 200 ms: ${r.quick ? 'n/a' : met(r.insights.storedMedianMs <= 200 && r.insights.identical)} |`,
        ]
      : []),
    ...(r.ingestCpu
      ? [
          `| ingest CPU µs/event: projector process; Postgres backends of the run's database; every postgres process | ${r.ingestCpu.projectorUsPerEvent}; ${r.ingestCpu.postgresBackendsUsPerEvent}; ${r.ingestCpu.postgresAllUsPerEvent} | |`,
          `| ingest: the projector's CPU by thread, µs/event: main thread; V8's helper threads (GC, compiler); the main thread's share of one core; the machine's busy share (all cores) | ${threadSplit(r.ingestCpu)} | |`,
        ]
      : []),
    ...(r.compression ?? []).map(
      (c) =>
        `| compression of ${c.endpoint} (${c.bytes} B), computed once per cache entry | gzip ${c.gzipBytes} B (×${c.gzipRatio}) in ${c.gzipMs} ms; br ${c.brBytes} B (×${c.brRatio}) in ${c.brMs} ms | |`,
    ),
    ...r.reads.map((x) =>
      x.skipped
        ? `| ${x.endpoint} | skipped (${x.skipped}) | |`
        : `| ${x.endpoint} c=${x.connections} (${x.tool ?? 'autocannon'}${x.bytes ? `, ${x.bytes} B${x.encoding ? ` ${x.encoding}` : ''}` : ''}): req/s, p50, p99, non-2xx; floor req/s, p99, ratio; CPU µs/request, floor's | ${x.reqPerSec}${delta(x.reqPerSec, prev?.reads.find((p) => p.endpoint === x.endpoint && p.connections === x.connections)?.reqPerSec)}, ${x.p50Ms} ms, ${x.p99Ms} ms, ${x.non2xx}${x.floorReqPerSec ? `; floor ${x.floorReqPerSec}${x.floorP99Ms !== undefined ? `, ${x.floorP99Ms} ms` : ''}, **${x.floorRatio}**` : ''}${x.cpuUsPerRequest !== undefined ? `; ${x.cpuUsPerRequest}, ${x.floorCpuUsPerRequest ?? '?'}` : ''} | ${readTarget(x)} |`,
    ),
    ...(r.miss
      ? [
          `| miss load c=${r.miss.connections} (${r.miss.tool}, ${r.miss.seconds} s): ${r.miss.flags} flags' events and ${r.miss.projects} projects' overviews at random, while ${r.miss.targetRate} events/s on those flags are produced: req/s, p50, p99, non-2xx | ${r.miss.reqPerSec}${delta(r.miss.reqPerSec, prev?.miss?.reqPerSec)}, ${r.miss.p50Ms} ms, ${r.miss.p99Ms} ms, ${r.miss.non2xx}; api CPU ${r.miss.apiCpuMsPerRequest ?? '?'} ms per request; the overview's statement alone ${r.miss.overviewStatementCpuUs ?? '?'} µs of backend CPU per execution, its activity alone ${r.miss.overviewActivityCpuUs ?? '?'} µs | p99 ≤ 20 ms: ${met(r.miss.p99Ms <= 20 && r.miss.non2xx === 0)} |`,
          ...(r.miss.paced
            ? [
                `| miss load paced: the same reads by ${r.miss.connections} clients pausing between requests (a random think time), ${r.miss.paced.offeredPerSec} req/s offered, while ${r.miss.targetRate} events/s are produced: req/s, p50, p99, non-2xx, from the caches | ${r.miss.paced.reqPerSec}, ${r.miss.paced.p50Ms} ms, ${r.miss.paced.p99Ms} ms, ${r.miss.paced.non2xx}, ${(r.miss.paced.cachedShare * 100).toFixed(1)}% | p99 ≤ 20 ms: ${met(r.miss.paced.p99Ms <= 20 && r.miss.paced.non2xx === 0)} |`,
                `| miss load paced: the floor route at the same pace, right after (req/s, p50, p99); the api's own time by route (p50, p99: upper bounds of its histogram's buckets); its event-loop delay (p99, max); its peak RSS over the load | ${r.miss.paced.floor ? `${r.miss.paced.floor.reqPerSec}, ${r.miss.paced.floor.p50Ms} ms, ${r.miss.paced.floor.p99Ms} ms` : '?'}; ${Object.entries(
                  r.miss.paced.apiServerMs ?? {},
                )
                  .map(([route, t]) => `${route} ${t.p50} / ${t.p99} ms`)
                  .join(
                    ', ',
                  )}; ${r.miss.paced.apiEventLoopDelayP99Ms ?? '?'} / ${r.miss.paced.apiEventLoopDelayMaxMs ?? '?'} ms; ${r.miss.paced.apiPeakRssMb ?? '?'} MB | |`,
              ]
            : []),
          `| miss load: answers from the caches; ingest during it (produced, projected, projector lag p50/max) | ${r.miss.cachedReplies} of ${r.miss.requests} (${(r.miss.cachedShare * 100).toFixed(1)}%); ${r.miss.producedPerSec}/s, ${r.miss.appliedPerSec}/s, lag ${r.miss.lagP50}/${r.miss.lagMax} events | |`,
          ...(r.miss.machineCpu
            ? [
                `| miss load: the machine's CPU during it by process, ms per second (2 cores: 2000) | ${Object.entries(
                  r.miss.machineCpu,
                )
                  .map(([group, ms]) => `${group} ${ms}`)
                  .join(', ')} | |`,
              ]
            : []),
        ]
      : []),
    '',
    ...(r.peer ? peerMarkdown(r.peer) : []),
    ...(r.ingestCpu
      ? ['Ingest CPU by stage (bench/ingest-cpu.ts):', '', ...ingestCpuRows(r.ingestCpu), '']
      : []),
  ].join('\n');
}

main().catch((e) => {
  console.error(`[bench] failed: ${(e as Error).stack ?? e}`);
  process.exit(1);
});
