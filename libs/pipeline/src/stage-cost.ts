import { closeSync, openSync, readFileSync, readSync } from 'node:fs';

/** What one stage of a batch cost: wall time, this process's CPU, and the Postgres backend's CPU. */
export interface StageCost {
  seconds: number;
  /** CPU of this process while the stage ran, shared evenly with the stages running at the same time */
  cpuSeconds: number;
  /** CPU of the Postgres backend serving the transaction during the stage (a local server only) */
  dbCpuSeconds?: number;
}

const cpuMicros = (): number => {
  const u = process.cpuUsage();
  return u.user + u.system;
};

/**
 * This process's CPU, split between the stages running at each moment. `process.cpuUsage()` counts the
 * whole process: with two batches in their transactions at once, a stage awaiting Postgres would otherwise
 * count the other batch's JavaScript as its own. Each interval between two starts or stops is shared evenly
 * by the stages open during it, so the stages' sum never exceeds what the process spent.
 */
export class CpuShares {
  private readonly open = new Map<number, number>();
  private last: number;
  private next = 0;

  /** `cpu`: the process's CPU so far, in microseconds (process.cpuUsage; another clock in tests) */
  constructor(private readonly cpu: () => number = cpuMicros) {
    this.last = cpu();
  }

  private advance(): void {
    const now = this.cpu();
    const spent = now - this.last;
    this.last = now;
    if (this.open.size === 0) return;
    const share = spent / this.open.size;
    for (const [id, v] of this.open) this.open.set(id, v + share);
  }

  start(): number {
    this.advance();
    const id = ++this.next;
    this.open.set(id, 0);
    return id;
  }

  /** The stage's CPU share, in seconds. */
  stop(id: number): number {
    this.advance();
    const v = this.open.get(id) ?? 0;
    this.open.delete(id);
    return v / 1e6;
  }
}

/** Open `/proc/<pid>/schedstat` files, by pid, the oldest first (a pool replaces its connections now and then). */
const schedstats = new Map<number, number>();
const MAX_OPEN_SCHEDSTATS = 32;
const schedstatBuffer = Buffer.alloc(128);

/**
 * CPU seconds a local Postgres backend has run (`/proc/<pid>/schedstat`, nanoseconds), or undefined when the
 * pid is not a local postgres process (a remote server, another pid namespace) or the file is unreadable.
 * Read twice per stage of every batch, so the file stays open and is read again from its start: a positioned
 * read costs far less than opening the file each time (docs/performance.md). A file whose
 * process has ended fails to read; it is closed, and opened again by path in case the pid was reused.
 */
export function backendCpuSeconds(pid: number): number | undefined {
  const cached = schedstats.get(pid);
  if (cached !== undefined) {
    const v = readSchedstat(cached);
    if (v !== undefined) return v;
    forget(pid);
  }
  let fd: number;
  try {
    fd = openSync(`/proc/${pid}/schedstat`, 'r');
  } catch {
    return undefined;
  }
  const v = readSchedstat(fd);
  if (v === undefined) {
    closeSync(fd);
    return undefined;
  }
  schedstats.set(pid, fd);
  if (schedstats.size > MAX_OPEN_SCHEDSTATS) forget(schedstats.keys().next().value as number);
  return v;
}

function readSchedstat(fd: number): number | undefined {
  try {
    const n = readSync(fd, schedstatBuffer, 0, schedstatBuffer.length, 0);
    const text = schedstatBuffer.toString('latin1', 0, n);
    const ns = Number(text.slice(0, text.indexOf(' ')));
    return n > 0 && Number.isFinite(ns) ? ns / 1e9 : undefined;
  } catch {
    return undefined;
  }
}

function forget(pid: number): void {
  const fd = schedstats.get(pid);
  schedstats.delete(pid);
  if (fd !== undefined)
    try {
      closeSync(fd);
    } catch {
      // already closed
    }
}

/** Open schedstat files (for tests). */
export const openSchedstats = (): number => schedstats.size;

/** Whether `pid` is a postgres process of this machine whose CPU can be read (else: not measured). */
export function isLocalPostgres(pid: number): boolean {
  try {
    return (
      readFileSync(`/proc/${pid}/comm`, 'latin1').startsWith('postgres') &&
      backendCpuSeconds(pid) !== undefined
    );
  } catch {
    return false;
  }
}
