/* CPU time of a process from /proc, for the bench's per-request and per-event CPU figures. */
import { execSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';

/** Clock ticks per second of /proc/<pid>/stat's times. */
export const CLOCK_TICKS = (() => {
  try {
    return Number(execSync('getconf CLK_TCK', { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
})();

/**
 * utime + stime of a process (+ cutime + cstime, the children it reaped, with `children`), in seconds; NaN when
 * it cannot be read (gone, or not Linux).
 */
export function procCpuSeconds(pid: number | string, children = false): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
    // fields after the command (which may hold spaces), from field 3 on
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const t = Number(f[11]) + Number(f[12]) + (children ? Number(f[13]) + Number(f[14]) : 0);
    return t / CLOCK_TICKS;
  } catch {
    return NaN;
  }
}

/**
 * The time on a CPU and the time runnable but waiting for one (run queue) of a process's main thread (the
 * whole process when it has one thread, as a Postgres backend), in ms, from
 * /proc/<pid>/schedstat; undefined when it cannot be read.
 */
export function schedMs(pid: number | undefined): { runMs: number; waitMs: number } | undefined {
  if (pid === undefined) return undefined;
  try {
    const [run, wait] = readFileSync(`/proc/${pid}/schedstat`, 'latin1').trim().split(' ').map(Number);
    return { runMs: run / 1e6, waitMs: wait / 1e6 };
  } catch {
    return undefined;
  }
}

/**
 * The machine's CPU time since boot from /proc/stat's first line, in seconds of all its CPUs together: `busy`
 * (user, nice, system, irq, softirq, steal) and `total` (idle and iowait added); undefined when unreadable.
 */
export function machineCpuSeconds(): { busy: number; total: number } | undefined {
  try {
    const line = readFileSync('/proc/stat', 'latin1').split('\n', 1)[0];
    const [user, nice, system, idle, iowait, irq, softirq, steal] = line
      .trim()
      .split(/\s+/)
      .slice(1, 9)
      .map(Number);
    const busy = user + nice + system + irq + softirq + (steal || 0);
    if (!Number.isFinite(busy) || !Number.isFinite(idle)) return undefined;
    return { busy: busy / CLOCK_TICKS, total: (busy + idle + (iowait || 0)) / CLOCK_TICKS };
  } catch {
    return undefined;
  }
}

/** A process's resident set in MB (/proc/<pid>/status VmRSS); NaN when it cannot be read. */
export function rssMb(pid: number | undefined): number {
  if (pid === undefined) return NaN;
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'latin1'));
    return m ? Number(m[1]) / 1024 : NaN;
  } catch {
    return NaN;
  }
}

/**
 * Samples a process's resident set every `everyMs` until the returned function is called, which gives the
 * largest sample in MB (rounded; NaN if none could be read): the peak of one stage, where the kernel's VmHWM
 * is the peak since the process started.
 */
export function sampleRss(pid: number | undefined, everyMs = 100): () => number {
  let peak = rssMb(pid);
  const timer = setInterval(() => {
    const now = rssMb(pid);
    if (!Number.isNaN(now) && (Number.isNaN(peak) || now > peak)) peak = now;
  }, everyMs);
  timer.unref();
  return () => {
    clearInterval(timer);
    return Math.round(peak);
  };
}

/** The machine a run measured on: cores, CPU model, memory, Node's and Postgres's versions. */
export async function machineFacts(pg: { query<R>(sql: string): Promise<{ rows: R[] }> }): Promise<{
  cores: number;
  cpu?: string;
  memoryGb: number;
  node: string;
  postgres: string;
  autovacuum: string;
  tableMaintenance: string;
}> {
  const [{ v, autovacuum }] = (
    await pg.query<{ v: string; autovacuum: string }>(
      "SELECT current_setting('server_version') AS v, current_setting('autovacuum') AS autovacuum",
    )
  ).rows;
  return {
    cores: cpus().length,
    cpu: cpus()[0]?.model,
    memoryGb: Math.round(totalmem() / 2 ** 30),
    node: process.version,
    postgres: v,
    // the server's autovacuum, and who keeps the tables where it is off (the projector's setting)
    autovacuum,
    tableMaintenance: process.env.PROJECTOR_TABLE_MAINTENANCE ?? 'auto',
  };
}

/**
 * Reads V8's `--trace-gc` lines from a process's standard output (fed chunk by chunk) and keeps the largest heap
 * a mark-compact left: the live set's peak, the figure a heap limit (`--max-old-space-size`) is set against. The
 * lines are V8's "Mark-Compact 120.1 (150.2) -> 110.5 (152.3) MB, …": the heap before and after, in MB.
 */
export function liveHeapPeak(): {
  feed: (chunk: Buffer | string) => void;
  peakMb: () => number;
  /** what the latest mark-compact left */
  lastMb: () => number;
  compactions: () => number;
} {
  let peak = NaN;
  let last = NaN;
  let compactions = 0;
  let rest = '';
  return {
    feed(chunk) {
      const lines = (rest + chunk.toString()).split('\n');
      rest = lines.pop() ?? '';
      for (const line of lines) {
        const m = /Mark-Compact[^>]*?([\d.]+) \([\d.]+\) -> ([\d.]+) \([\d.]+\) MB/.exec(line);
        if (!m) continue;
        compactions++;
        last = Number(m[2]);
        if (Number.isNaN(peak) || last > peak) peak = last;
      }
    },
    peakMb: () => (Number.isNaN(peak) ? NaN : Math.round(peak * 10) / 10),
    lastMb: () => last,
    compactions: () => compactions,
  };
}
