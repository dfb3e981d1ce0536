/*
 * CPU per event of the ingest: the projector process, Postgres (the backends of the bench's database, and every
 * postgres process of the machine), and, per stage of the batches, the projector's own share and its
 * backend's (the projector's flaglens_projector_stage_cpu_seconds_total and _stage_db_cpu_seconds_total).
 * CPU time is what a shared, loaded machine leaves least distorted: wall time waits for the other tenants.
 */
import { readdirSync, readFileSync } from 'node:fs';
import type { Client } from 'pg';
import { machineCpuSeconds, procCpuSeconds, schedMs } from './proc';

/** A process's CPU seconds (0 when it is gone). */
const procCpu = (pid: number | string, children = false): number => procCpuSeconds(pid, children) || 0;

/** Every postgres process of the machine (the server's children reaped count in its cutime). */
function allPostgresCpu(): number {
  let sum = 0;
  for (const pid of readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      if (!readFileSync(`/proc/${pid}/comm`, 'latin1').startsWith('postgres')) continue;
    } catch {
      continue;
    }
    sum += procCpu(pid, true);
  }
  return sum;
}

/** Run time of a process from /proc/<pid>/schedstat (nanoseconds, exact), in seconds. */
const schedCpu = (pid: number): number => (schedMs(pid)?.runMs ?? 0) / 1000;

export interface CpuSample {
  applied: number;
  /** when it was taken (ms, monotonic) */
  at: number;
  projector: number;
  /** the projectors' main threads (JavaScript, and the GC work V8 does on it): /proc/<pid>/schedstat */
  projectorMain: number;
  /** the machine's CPU seconds, busy and in all (/proc/stat), when readable */
  machine?: { busy: number; total: number };
  postgresAll: number;
  /** backend pid -> its CPU seconds, for the backends connected to the bench's database */
  backends: Map<number, number>;
}

/** `projectorPids`: every projector of the run (their CPU is summed). */
export async function cpuSample(pg: Client, projectorPids: number[], applied: number): Promise<CpuSample> {
  const r = await pg.query<{ pid: number }>(
    `SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()`,
  );
  return {
    applied,
    at: performance.now(),
    projector: projectorPids.reduce((sum, pid) => sum + procCpu(pid), 0),
    projectorMain: projectorPids.reduce((sum, pid) => sum + schedCpu(pid), 0),
    machine: machineCpuSeconds(),
    postgresAll: allPostgresCpu(),
    backends: new Map(r.rows.map((x) => [Number(x.pid), schedCpu(Number(x.pid))])),
  };
}

export interface IngestCpu {
  /** events applied between the two samples (the per-event divisor of the three totals) */
  events: number;
  projectorUsPerEvent: number;
  /**
   * The projector's CPU split by thread: its main thread, and the rest (V8's helper threads: concurrent
   * marking, parallel scavenging, sweeping, compiling; libuv's pool), µs/event; with `mainCoreShare`, the
   * main thread's time on a CPU over the wall time (1: one core all the time, the bound of one thread). With
   * several projectors (`--projectors N`) each figure sums their processes, so the share can reach N.
   */
  projectorMainUsPerEvent: number;
  projectorHelpersUsPerEvent: number;
  mainCoreShare: number;
  /** the share of the machine's CPU time (all cores) that was busy over the same span, when readable */
  machineBusyShare?: number;
  /** the backends connected to the bench's database (the projector's connections): ours alone */
  postgresBackendsUsPerEvent: number;
  /** every postgres process of the machine, background writers included (and other tenants' queries) */
  postgresAllUsPerEvent: number;
  /** per stage: wall seconds, the projector's CPU µs/event, its backend's CPU µs/event (over all events) */
  stages: { stage: string; seconds: number; nodeUs: number; postgresUs?: number }[];
}

/**
 * A per-stage counter of the projector's metrics, by stage; summed over every scrape in `text` (several
 * projectors' scrapes joined).
 */
export const stageCounter = (text: string, name: string): Map<string, number> => {
  const m = new Map<string, number>();
  for (const x of text.matchAll(new RegExp(`^${name}\\{[^}]*\\bstage="([^"]+)"[^}]*\\} ([0-9.e+-]+)$`, 'gm')))
    m.set(x[1], (m.get(x[1]) ?? 0) + Number(x[2]));
  return m;
};

/** Every sample of the metric `name` in `text` (any labels; several scrapes joined), summed; 0 when none. */
export const metricSum = (text: string, name: string): number => {
  let sum = 0;
  for (const x of text.matchAll(new RegExp(`^${name}(?:\\{[^}]*\\})? ([0-9.e+-]+)$`, 'gm')))
    sum += Number(x[1]);
  return sum;
};

const round = (x: number) => Number(x.toFixed(2));

/** The ingest's CPU per event between two samples, and per stage from the projectors' metrics (`stageCounter`). */
export function ingestCpu(
  before: CpuSample,
  after: CpuSample,
  metricsText: string,
  total: number,
): IngestCpu {
  const events = Math.max(1, after.applied - before.applied);
  let backends = 0;
  for (const [pid, s] of after.backends) backends += s - (before.backends.get(pid) ?? 0);
  const wall = stageCounter(metricsText, 'flaglens_projector_stage_seconds_total');
  const cpu = stageCounter(metricsText, 'flaglens_projector_stage_cpu_seconds_total');
  const db = stageCounter(metricsText, 'flaglens_projector_stage_db_cpu_seconds_total');
  const stages = [...wall.keys()]
    .map((stage) => ({
      stage,
      seconds: round(wall.get(stage)!),
      nodeUs: round((1e6 * (cpu.get(stage) ?? 0)) / total),
      postgresUs: db.has(stage) ? round((1e6 * db.get(stage)!) / total) : undefined,
    }))
    .sort((a, b) => b.nodeUs + (b.postgresUs ?? 0) - (a.nodeUs + (a.postgresUs ?? 0)));
  const projector = after.projector - before.projector;
  const main = after.projectorMain - before.projectorMain;
  const wallSeconds = Math.max(1e-3, (after.at - before.at) / 1000);
  const machine =
    before.machine && after.machine && after.machine.total > before.machine.total
      ? (after.machine.busy - before.machine.busy) / (after.machine.total - before.machine.total)
      : undefined;
  return {
    events,
    projectorUsPerEvent: round((1e6 * projector) / events),
    projectorMainUsPerEvent: round((1e6 * main) / events),
    // stat's ticks and schedstat's nanoseconds: a few ms apart over a run, never below zero
    projectorHelpersUsPerEvent: round((1e6 * Math.max(0, projector - main)) / events),
    mainCoreShare: round(main / wallSeconds),
    machineBusyShare: machine !== undefined ? round(machine) : undefined,
    postgresBackendsUsPerEvent: round((1e6 * backends) / events),
    postgresAllUsPerEvent: round((1e6 * (after.postgresAll - before.postgresAll)) / events),
    stages,
  };
}

/** The stages as table rows (markdown), with the totals. */
export function ingestCpuRows(c: IngestCpu): string[] {
  const sum = (f: (s: IngestCpu['stages'][number]) => number) =>
    round(c.stages.reduce((a, s) => a + f(s), 0));
  return [
    '| stage | wall s | projector CPU µs/event | Postgres backend CPU µs/event |',
    '|---|---|---|---|',
    ...c.stages.map((s) => `| ${s.stage} | ${s.seconds} | ${s.nodeUs} | ${s.postgresUs ?? '–'} |`),
    `| all stages | ${sum((s) => s.seconds)} | ${sum((s) => s.nodeUs)} | ${sum((s) => s.postgresUs ?? 0)} |`,
    `| whole process / all backends of the database / every postgres process | | ${c.projectorUsPerEvent} | ${c.postgresBackendsUsPerEvent} / ${c.postgresAllUsPerEvent} |`,
  ];
}
