/*
 * The bench's miss load (issue 16, "reads that miss"): reads of many distinct flags and projects in random order
 * while the projector ingests a steady stream of events on those flags, so most answers are not cached, or are
 * dropped by a change soon after being cached, as in real life.
 *
 * It produces, to the bench's topic, an extra history of its own (`miss-p-*` projects, `miss-f-*` flags across
 * them, a few events each, ids from MISS_FIRST_ID), waits until it is projected, then runs a producer at a steady
 * rate (events on those flags in random order) and, meanwhile, the random-path read load; it reports the load's
 * figures, the share of the api's answers served from its caches (`flaglens_api_cached_replies_total`), and
 * the ingest rate achieved and the projector's lag during the load.
 */
import { procCpuSeconds, sampleRss, schedMs } from './proc';
import { cpuByGroup, cpuSnapshot, type CpuGroup } from './machine-cpu';
import { bucketQuantile, histogramBuckets } from './histogram-text';
import type { Kafka } from 'kafkajs';
import { topicWatermarks } from '@flaglens/kafka';
import { eventKey, type FlagEvent } from '@flaglens/contract';
import { httpGet } from '@flaglens/testing/support/http';
import { load, type LoadTool } from './load';
import { flagChangeEvent, projectCreatedEvent } from './bench-events';
import { ActiveVersionPool } from '@flaglens/persistence';
import { OverviewReadModel, type OverviewState } from '@flaglens/projections';

/** Ids of this stage's events (above the bench's history and its freshness stage). */
const MISS_FIRST_ID = 70_000_000;
export interface MissLoadOptions {
  kafka: Kafka;
  topic: string;
  /** the api's port, and the headers that authenticate a read */
  port: number;
  headers: Record<string, string>;
  /** the floor server's port (bench/floor-server.ts): loaded the same way under the same ingest, for comparison */
  floorPort?: number;
  tool: LoadTool;
  /** the api's process id: its CPU time during the load is reported per request */
  apiPid?: number;
  /** the projector's process id, and the Postgres backends by application_name: the machine's CPU by group */
  projectorPid?: number;
  backends?: () => Promise<Map<number, string>>;
  /** events the projector has committed (the sum of its offsets) */
  applied: () => Promise<number>;
  /** the clock the apps run at (FLAGLENS_CLOCK) */
  now: string;
  /** the small form (CI): 100 projects and 1,000 flags instead of 1,000 and 10,000 */
  quick: boolean;
  projects?: number;
  flags?: number;
  /** events per flag of the extra history, its feature-created included (4) */
  eventsPerFlag?: number;
  /** events/s of the producer during the load */
  rate: number;
  connections: number;
  seconds: number;
  /**
   * requests/s offered by the paced load (`paced` in the result): the same connections and paths after the
   * closed loop, each connection pausing a random think time between requests; none when undefined
   */
  pacedRate?: number;
  /**
   * which paths the load reads: both kinds at random (the figure the issue asks for), or one kind alone, to
   * tell what each costs (`npm run bench -- --miss-only --miss-routes events`)
   */
  routes?: MissRoutes;
  /**
   * the stage's database: after the load, the overview's statement is run alone there, as the api runs it, and
   * its backend's CPU per execution is reported (`overviewStatementCpuUs`), and that of its activity alone
   */
  databaseUrl?: string;
}

export const MISS_ROUTES = ['both', 'events', 'overview'] as const;
export type MissRoutes = (typeof MISS_ROUTES)[number];

export interface MissLoadResult {
  tool: LoadTool;
  connections: number;
  seconds: number;
  /** distinct paths read: `flags` event lists and `projects` overviews (those of `routes`) */
  routes: MissRoutes;
  flags: number;
  projects: number;
  historyEvents: number;
  reqPerSec: number;
  p50Ms: number;
  p99Ms: number;
  non2xx: number;
  requests: number;
  /** the api's CPU time (user + system) during the load, per request */
  apiCpuMsPerRequest?: number;
  /** answers the api served from its caches (the counter's increase) and their share of the requests */
  cachedReplies: number;
  cachedShare: number;
  /** the producer's target rate, the rate it achieved, and the rate the projector committed during the load */
  targetRate: number;
  producedPerSec: number;
  appliedPerSec: number;
  /**
   * the api's garbage collection during the load (prom-client's `nodejs_gc_duration_seconds`): seconds and
   * collections by kind, and its event loop's delay over the load (max and p99, ms), where the tail comes from
   */
  apiGc?: Record<string, { seconds: number; count: number }>;
  /** the api's largest resident set during the load, MB (sampled every 100 ms) */
  apiPeakRssMb?: number;
  apiEventLoopDelayMaxMs?: number;
  /**
   * the api's own time per request of the load by route (Fastify's clock, from its duration histogram: the
   * upper bound of the bucket, ms), beside the client's: the gap is time spent before the api reads the request
   */
  /**
   * the api's main thread during the load (/proc/<pid>/schedstat): ms on a CPU and ms runnable but waiting for
   * one, per second of the load
   */
  apiMainThread?: { runMsPerSec: number; waitMsPerSec: number };
  apiServerMs?: Record<'events' | 'overview', { requests: number; p50: number; p99: number }>;
  apiEventLoopDelayP99Ms?: number;
  /**
   * the floor under the same ingest: a bare authenticated route answering a fixed body of the answers' mean size,
   * loaded right after, with the same connections and duration, while the producer goes on
   */
  floor?: { bytes: number; reqPerSec: number; p50Ms: number; p99Ms: number };
  /**
   * the same reads by clients that pause between requests (`pacedRate` offered, the same connections, paths and
   * duration, right after the floor, while the producer goes on): latency at a given load, where the closed loop
   * above keeps the two cores saturated and its tail is the wait for a CPU
   */
  paced?: {
    offeredPerSec: number;
    reqPerSec: number;
    p50Ms: number;
    p99Ms: number;
    non2xx: number;
    requests: number;
    cachedShare: number;
    /** the floor route at the same pace, right after, under the same ingest: the tail any server gets here */
    floor?: { reqPerSec: number; p50Ms: number; p99Ms: number };
  } & ApiFigures;
  /**
   * the machine's CPU during the load, by process group (ms per second; two cores give 2,000): what the api
   * shares the cores with (bench/machine-cpu.ts)
   */
  machineCpu?: Record<CpuGroup | 'total', number>;
  /**
   * µs of CPU of the Postgres backend per execution of the overview's statement, run alone after the load (one
   * connection, the api's named statement, random projects of the stage; the ingest stopped)
   */
  overviewStatementCpuUs?: number;
  /**
   * the same for the overview's activity alone (what a body dropped while its state is kept costs), each read
   * given a state read before
   */
  overviewActivityCpuUs?: number;
  /** the change notices the api received during the load, by scope (named, everything, reset) */
  changeNotices?: Record<string, number>;
  /** the projector's lag (events produced, not yet committed), sampled every 250 ms during the load */
  lagP50: number;
  lagMax: number;
  lagEnd: number;
}

/** What the api, the ingest and the machine did during a load: the closed loop's and the paced one's. */
type ApiFigures = Pick<
  MissLoadResult,
  | 'apiGc'
  | 'apiPeakRssMb'
  | 'apiEventLoopDelayMaxMs'
  | 'apiEventLoopDelayP99Ms'
  | 'apiServerMs'
  | 'changeNotices'
  | 'apiMainThread'
  | 'machineCpu'
>;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const project = (p: number) => `miss-p-${p}`;
const flag = (f: number) => `miss-f-${f}`;

/** A change of flag `f` (its `seq`-th event). */
const flagEvent = (o: Sized, id: number, f: number, seq: number, createdAt: string): FlagEvent =>
  flagChangeEvent({
    id,
    createdAt,
    name: flag(f),
    project: project(f % o.projects),
    created: seq === 0,
    type: f + seq,
    user: f,
    env: f + seq,
    n: seq,
    team: f,
  });

const projectCreated = (id: number, p: number, createdAt: string): FlagEvent =>
  projectCreatedEvent(id, createdAt, project(p), `Miss ${p}`);

const message = (e: FlagEvent) => ({ key: eventKey(e), value: JSON.stringify(e) });
const highWater = async (kafka: Kafka, topic: string) =>
  (await topicWatermarks(kafka, topic)).reduce((n, p) => n + p.high, 0);
const cachedReplies = (text: string) => {
  let n = 0;
  for (const m of text.matchAll(/^flaglens_api_cached_replies_total(?:\{[^}]*\})? ([0-9.e+-]+)$/gm))
    n += Number(m[1]);
  return n;
};
/** The api's GC sums and counts by kind, from its metrics text. */
const gcOf = (text: string): Map<string, { seconds: number; count: number }> => {
  const m = new Map<string, { seconds: number; count: number }>();
  for (const [, part, kind, v] of text.matchAll(
    /^nodejs_gc_duration_seconds_(sum|count)\{(?:[^}]*,)?kind="([a-z]+)"[^}]*\} ([0-9.e+-]+)$/gm,
  )) {
    const e = m.get(kind) ?? { seconds: 0, count: 0 };
    if (part === 'sum') e.seconds = Number(v);
    else e.count = Number(v);
    m.set(kind, e);
  }
  return m;
};
/** The api's duration histogram of a route (its pattern), statuses summed. */
const durations = (text: string, route: string): Map<number, number> =>
  histogramBuckets(text, 'flaglens_http_request_duration_seconds', (labels) =>
    labels.includes(`route="${route}"`),
  );
/** Requests, p50 and p99 (the upper bounds of their buckets, ms) of a route's increase between two texts. */
const serverTimes = (before: string, after: string, route: string) => {
  const b = durations(before, route);
  const a = durations(after, route);
  const q = (p: number) => (bucketQuantile(b, a, p) ?? NaN) * 1000;
  return { requests: (a.get(Infinity) ?? 0) - (b.get(Infinity) ?? 0), p50: q(0.5), p99: q(0.99) };
};
/** The api's change notices so far, by scope. */
const noticesOf = (text: string): Map<string, number> =>
  new Map(
    [
      ...text.matchAll(/^flaglens_api_change_notices_total\{[^}]*\bscope="([a-z]+)"[^}]*\} ([0-9.e+-]+)$/gm),
    ].map(([, scope, v]) => [scope, Number(v)]),
  );
/** A gauge of the metrics text (first sample), NaN when absent. */
const gauge = (text: string, name: string): number =>
  Number(new RegExp(`^${name}(?:\\{[^}]*\\})? ([0-9.e+-]+)$`, 'm').exec(text)?.[1] ?? NaN);
/** A process's CPU time so far, ms (utime + stime of /proc/<pid>/stat). */
const cpuMs = (pid: number | undefined): number => (pid === undefined ? NaN : procCpuSeconds(pid) * 1000);
const pct = (xs: number[], p: number) =>
  xs.length ? [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))] : NaN;

/** Builds the miss history, then loads random flags and projects while producing at `rate`; see the top. */
export async function missLoad(options: MissLoadOptions): Promise<MissLoadResult> {
  const o: Sized = {
    projects: options.quick ? 100 : 1000,
    flags: options.quick ? 1000 : 10_000,
    eventsPerFlag: 4,
    routes: 'both',
    ...options,
  };
  const result = await run(o);
  console.log(
    `[bench] miss load c=${o.connections} (${result.tool}, ${readsOf(o).join(' + ')} at random, ${o.rate} events/s produced): ${result.reqPerSec} req/s, p50 ${result.p50Ms} ms, p99 ${result.p99Ms} ms, non-2xx ${result.non2xx}; api CPU ${result.apiCpuMsPerRequest ?? '?'} ms/request; cached ${result.cachedReplies} of ${result.requests} (${result.cachedShare}); produced ${result.producedPerSec}/s, projected ${result.appliedPerSec}/s, lag p50 ${result.lagP50}, max ${result.lagMax}, at the end ${result.lagEnd}; the overview's statement alone ${result.overviewStatementCpuUs ?? '?'} µs of backend CPU per execution, its activity alone ${result.overviewActivityCpuUs ?? '?'} µs; change notices ${JSON.stringify(result.changeNotices ?? {})}; the floor under the same ingest ${result.floor ? `(${result.floor.bytes} B): ${result.floor.reqPerSec} req/s, p50 ${result.floor.p50Ms} ms, p99 ${result.floor.p99Ms} ms` : '?'}; the api's main thread per s: ${JSON.stringify(result.apiMainThread ?? {})}; the api's own time (p50, p99 ≤ ms) ${JSON.stringify(result.apiServerMs ?? {})}; api event-loop delay max ${result.apiEventLoopDelayMaxMs ?? '?'} ms, p99 ${result.apiEventLoopDelayP99Ms ?? '?'} ms; api GC ${JSON.stringify(result.apiGc ?? {})}, peak RSS ${result.apiPeakRssMb ?? '?'} MB; the machine's CPU by process, ms/s ${JSON.stringify(result.machineCpu ?? {})}`,
  );
  if (result.paced) {
    const q = result.paced;
    console.log(
      `[bench] miss load paced (${result.tool}, ${o.connections} connections pausing between requests, ${q.offeredPerSec} req/s offered, ${o.rate} events/s produced): ${q.reqPerSec} req/s, p50 ${q.p50Ms} ms, p99 ${q.p99Ms} ms, non-2xx ${q.non2xx}; cached ${q.cachedShare}; the floor at the same pace ${q.floor ? `${q.floor.reqPerSec} req/s, p50 ${q.floor.p50Ms} ms, p99 ${q.floor.p99Ms} ms` : '?'}; the api's own time (p50, p99 ≤ ms) ${JSON.stringify(q.apiServerMs ?? {})}; api event-loop delay max ${q.apiEventLoopDelayMaxMs ?? '?'} ms, p99 ${q.apiEventLoopDelayP99Ms ?? '?'} ms; api GC ${JSON.stringify(q.apiGc ?? {})}, peak RSS ${q.apiPeakRssMb ?? '?'} MB; change notices ${JSON.stringify(q.changeNotices ?? {})}; the api's main thread per s: ${JSON.stringify(q.apiMainThread ?? {})}; the machine's CPU by process, ms/s ${JSON.stringify(q.machineCpu ?? {})}`,
    );
  }
  return result;
}

/**
 * The backend's CPU per execution of the overview's statement alone: the read model the api uses, on a pool of
 * one connection (its named statement, planned generic after the first executions, as on the api's pool), over
 * random projects of the stage; from the backend's /proc/<pid>/schedstat. Undefined where that is unreadable.
 */
async function overviewStatementCpu(
  url: string,
  projects: number,
  now: string,
): Promise<{ whole?: number; activity?: number }> {
  const RUNS = 2000;
  const reads = new ActiveVersionPool(url, 1);
  try {
    await reads.refresh();
    const model = new OverviewReadModel(reads);
    const at = new Date(now);
    const pid = (await reads.pool().query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0].pid;
    const some = () => project(Math.floor(Math.random() * projects));
    /** µs of the backend's CPU per call of `read`, past its custom plans */
    const cpu = async (read: () => Promise<unknown>) => {
      for (let i = 0; i < 50; i++) await read();
      const s0 = schedMs(pid);
      for (let i = 0; i < RUNS; i++) await read();
      const s1 = schedMs(pid);
      return s0 && s1 ? Math.round(((s1.runMs - s0.runMs) * 1000) / RUNS) : undefined;
    };
    const whole = await cpu(() => model.read(some(), at));
    // the activity alone: each project's state read first, then given
    const states = new Map<string, OverviewState>();
    for (let p = 0; p < projects; p++) {
      const { state } = await model.read(project(p), at);
      if (state) states.set(project(p), state);
    }
    const activity = await cpu(() => {
      const p = some();
      return model.read(p, at, false, states.get(p));
    });
    return { whole, activity };
  } finally {
    await reads.close();
  }
}

/** What the load reads, for its log line: "10000 flags + 1000 projects", or one of them. */
const readsOf = (o: Sized): string[] => [
  ...(o.routes !== 'overview' ? [`${o.flags} flags`] : []),
  ...(o.routes !== 'events' ? [`${o.projects} projects`] : []),
];

type Sized = MissLoadOptions &
  Required<Pick<MissLoadOptions, 'projects' | 'flags' | 'eventsPerFlag' | 'routes'>>;

async function run(o: Sized): Promise<MissLoadResult> {
  const producer = o.kafka.producer({ allowAutoTopicCreation: false });
  await producer.connect();
  let id = MISS_FIRST_ID;
  try {
    // the history: the projects, then each flag's creation and a few changes, a month before the clock
    const t0 = Date.parse(o.now) - 30 * 86_400_000;
    const at = (k: number) => new Date(t0 + k * 10).toISOString();
    const history: FlagEvent[] = [];
    for (let p = 0; p < o.projects; p++) history.push(projectCreated(id++, p, at(history.length)));
    for (let seq = 0; seq < o.eventsPerFlag; seq++)
      for (let f = 0; f < o.flags; f++) history.push(flagEvent(o, id++, f, seq, at(history.length)));
    for (let i = 0; i < history.length; i += 2000)
      await producer.send({ topic: o.topic, acks: -1, messages: history.slice(i, i + 2000).map(message) });
    const target = await highWater(o.kafka, o.topic);
    const w0 = Date.now();
    while ((await o.applied()) < target) {
      if (Date.now() - w0 > 10 * 60_000) throw new Error('the miss history was not projected in 10 minutes');
      await sleep(100);
    }
    console.log(
      `[bench] miss: ${history.length} events (${o.projects} projects, ${o.flags} flags) projected in ${((Date.now() - w0) / 1000).toFixed(1)} s`,
    );

    // the steady producer: every 100 ms, rate/10 changes of random flags, stamped a minute before the clock
    let stop = false;
    let produced = 0;
    const seqs = new Array<number>(o.flags).fill(o.eventsPerFlag);
    const createdAt = new Date(Date.parse(o.now) - 60_000).toISOString();
    const producing = (async () => {
      const perTick = Math.round(o.rate / 10);
      while (!stop) {
        const t = Date.now();
        const messages = Array.from({ length: perTick }, () => {
          const f = Math.floor(Math.random() * o.flags);
          return message(flagEvent(o, id++, f, seqs[f]++, createdAt));
        });
        await producer.send({ topic: o.topic, acks: -1, messages });
        produced += messages.length;
        await sleep(Math.max(0, 100 - (Date.now() - t)));
      }
    })();
    // the projector's lag, sampled
    const lags: number[] = [];
    const sampling = (async () => {
      while (!stop) {
        lags.push(Math.max(0, (await highWater(o.kafka, o.topic)) - (await o.applied())));
        await sleep(250);
      }
    })();
    let r: Awaited<ReturnType<typeof load>>;
    let closed: ApiWatch;
    let floor: MissLoadResult['floor'];
    let paced: MissLoadResult['paced'];
    try {
      await sleep(1000); // the producer at its rate before the reads start
      const paths = [
        ...(o.routes === 'overview'
          ? []
          : Array.from({ length: o.flags }, (_, f) => `/api/admin/events/${flag(f)}`)),
        ...(o.routes === 'events'
          ? []
          : Array.from({ length: o.projects }, (_, p) => `/api/admin/projects/${project(p)}/overview`)),
      ];
      // the answers' mean size, from a sample of the paths (before the load, as its first readers would, and
      // before its figures start: these requests are not the load's)
      let sampled = 0;
      for (let i = 0; i < 50; i++)
        sampled += Buffer.byteLength(
          (await httpGet(o.port, paths[Math.floor(Math.random() * paths.length)], o.headers)).text,
        );
      const meanBytes = Math.round(sampled / 50);
      const counts = { produced: () => produced, applied: o.applied };
      const origin = `http://127.0.0.1:${o.port}`;
      [r, closed] = await watched(o, counts, () =>
        load(o.tool, origin, o.headers, o.connections, o.seconds, paths),
      );
      const floorOrigin = `http://127.0.0.1:${o.floorPort}`;
      const floorPath = [`/floor/${meanBytes}`];
      if (o.floorPort !== undefined) {
        const f = await load(o.tool, floorOrigin, o.headers, o.connections, o.seconds, floorPath);
        floor = { bytes: meanBytes, reqPerSec: f.reqPerSec, p50Ms: f.p50Ms, p99Ms: f.p99Ms };
      }
      if (o.pacedRate !== undefined && o.tool !== 'wrk')
        console.log('[bench] miss load paced: skipped, a paced load needs wrk (bench/load.ts)');
      else if (o.pacedRate !== undefined) {
        const rate = o.pacedRate;
        const [p, w] = await watched(o, counts, () =>
          load(o.tool, origin, o.headers, o.connections, o.seconds, paths, rate),
        );
        const n = p.requests ?? Math.round(p.reqPerSec * o.seconds);
        // the floor at the same pace under the same ingest: the tail the machine and the tool give any server
        const f =
          o.floorPort === undefined
            ? undefined
            : await load(o.tool, floorOrigin, o.headers, o.connections, o.seconds, floorPath, rate);
        paced = {
          offeredPerSec: rate,
          reqPerSec: p.reqPerSec,
          p50Ms: p.p50Ms,
          p99Ms: p.p99Ms,
          non2xx: p.non2xx,
          requests: n,
          cachedShare: Number((w.cachedReplies / n).toFixed(3)),
          ...(f ? { floor: { reqPerSec: f.reqPerSec, p50Ms: f.p50Ms, p99Ms: f.p99Ms } } : {}),
          ...w.figures,
        };
      }
    } finally {
      stop = true;
      await Promise.all([producing, sampling]);
    }
    const lagEnd = Math.max(0, (await highWater(o.kafka, o.topic)) - (await o.applied()));
    const statementCpu =
      o.databaseUrl === undefined ? {} : await overviewStatementCpu(o.databaseUrl, o.projects, o.now);
    const requests = r.requests ?? Math.round(r.reqPerSec * o.seconds);
    return {
      tool: r.tool,
      connections: o.connections,
      seconds: o.seconds,
      routes: o.routes,
      overviewStatementCpuUs: statementCpu.whole,
      overviewActivityCpuUs: statementCpu.activity,
      flags: o.flags,
      projects: o.projects,
      historyEvents: history.length,
      reqPerSec: r.reqPerSec,
      p50Ms: r.p50Ms,
      p99Ms: r.p99Ms,
      non2xx: r.non2xx,
      requests,
      ...(Number.isFinite(closed.apiCpuMs)
        ? { apiCpuMsPerRequest: Number((closed.apiCpuMs / requests).toFixed(3)) }
        : {}),
      cachedReplies: closed.cachedReplies,
      ...closed.figures,
      ...(floor ? { floor } : {}),
      ...(paced ? { paced } : {}),
      cachedShare: Number((closed.cachedReplies / requests).toFixed(3)),
      targetRate: o.rate,
      producedPerSec: closed.producedPerSec,
      appliedPerSec: closed.appliedPerSec,
      lagP50: pct(lags, 50),
      lagMax: Math.max(0, ...lags),
      lagEnd,
    };
  } finally {
    await producer.disconnect();
  }
}

/** What the api, the ingest and the machine did during one load (bench/miss.ts `watched`). */
/** What a watched load reports besides its figures (`ApiFigures`, which go into the result as they are). */
interface ApiWatch {
  /** the api's CPU time during the load, ms (NaN where unreadable) */
  apiCpuMs: number;
  cachedReplies: number;
  producedPerSec: number;
  appliedPerSec: number;
  figures: ApiFigures;
}

/**
 * Runs one load and reads, around it, the api's metrics (reading them also starts its event-loop delay
 * histogram afresh), its CPU and main thread, the machine's CPU by process, and the events produced and
 * projected: every figure per second is over the load's own span.
 */
async function watched<T>(
  o: Sized,
  counts: { produced: () => number; applied: () => Promise<number> },
  run: () => Promise<T>,
): Promise<[T, ApiWatch]> {
  const before = (await httpGet(o.port, '/metrics')).text;
  const produced0 = counts.produced();
  const applied0 = await counts.applied();
  const l0 = Date.now();
  const cpu0 = cpuMs(o.apiPid);
  const sched0 = schedMs(o.apiPid);
  const machine0 = cpuSnapshot();
  const rss = sampleRss(o.apiPid);
  const result = await run();
  const apiPeakRssMb = rss();
  const machine1 = cpuSnapshot();
  const seconds = (Date.now() - l0) / 1000;
  const apiCpuMs = cpuMs(o.apiPid) - cpu0;
  const sched1 = schedMs(o.apiPid);
  const producedDuring = counts.produced() - produced0;
  const appliedDuring = (await counts.applied()) - applied0;
  const machineCpu = cpuByGroup(machine0, machine1, seconds, {
    apiPid: o.apiPid,
    projectorPid: o.projectorPid,
    benchPid: process.pid,
    backends: (await o.backends?.()) ?? new Map(),
  });
  const after = (await httpGet(o.port, '/metrics')).text;
  const gc0 = gcOf(before);
  const apiGc: NonNullable<ApiFigures['apiGc']> = {};
  for (const [kind, e] of gcOf(after)) {
    const b = gc0.get(kind) ?? { seconds: 0, count: 0 };
    apiGc[kind] = { seconds: Number((e.seconds - b.seconds).toFixed(3)), count: e.count - b.count };
  }
  const notices0 = noticesOf(before);
  const elMax = gauge(after, 'nodejs_eventloop_lag_max_seconds') * 1000;
  const elP99 = gauge(after, 'nodejs_eventloop_lag_p99_seconds') * 1000;
  return [
    result,
    {
      apiCpuMs,
      cachedReplies: cachedReplies(after) - cachedReplies(before),
      producedPerSec: Math.round(producedDuring / seconds),
      appliedPerSec: Math.round(appliedDuring / seconds),
      figures: {
        apiGc,
        ...(Number.isFinite(apiPeakRssMb) ? { apiPeakRssMb } : {}),
        ...(Number.isFinite(elMax) ? { apiEventLoopDelayMaxMs: Number(elMax.toFixed(1)) } : {}),
        ...(Number.isFinite(elP99) ? { apiEventLoopDelayP99Ms: Number(elP99.toFixed(1)) } : {}),
        apiServerMs: {
          events: serverTimes(before, after, '/api/admin/events/:featureName'),
          overview: serverTimes(before, after, '/api/admin/projects/:projectId/overview'),
        },
        changeNotices: Object.fromEntries(
          [...noticesOf(after)].map(([scope, n]) => [scope, n - (notices0.get(scope) ?? 0)]),
        ),
        ...(sched0 && sched1
          ? {
              apiMainThread: {
                runMsPerSec: Math.round((sched1.runMs - sched0.runMs) / seconds),
                waitMsPerSec: Math.round((sched1.waitMs - sched0.waitMs) / seconds),
              },
            }
          : {}),
        machineCpu,
      },
    },
  ];
}
