import type { PoolClient } from 'pg';
import { backendCpuSeconds, CpuShares, isLocalPostgres, type StageCost } from './stage-cost';

/** Told the wall time and CPU of each run of a stage (metrics, the bench's profile). */
export type StageListener = (stage: string, seconds: number, cost: StageCost) => void;

/** A stage of a batch's transaction: work on the transaction's client. */
type ClientStage = (c: PoolClient, ...args: never[]) => Promise<unknown>;

/**
 * Stage timing, around the stages rather than inside them: a unit hands its stage functions to `stages` (or
 * `sync`) once, when it is built, and calls what it gets back. Each call then reports its wall time, this
 * process's share of the CPU (CpuShares) and, for a stage on a client of a local server, the Postgres backend's
 * CPU, under the stage's name. Without a listener the functions are given back as they are: nothing is
 * measured and nothing is added to the batches' path.
 */
export class StageTimer {
  private readonly cpu = new CpuShares();
  /** The pid of each pooled connection's backend when it is a local postgres process, else null. */
  private readonly backends = new WeakMap<PoolClient, number | null>();

  constructor(private readonly listener?: StageListener) {}

  /** Each function of `fns`, timed under its key: the key is the stage's name. */
  stages<T extends Record<string, ClientStage>>(fns: T): T {
    if (!this.listener) return fns;
    const timed: Record<string, ClientStage> = {};
    for (const [stage, fn] of Object.entries(fns))
      timed[stage] = (c: PoolClient, ...args: never[]) => this.run(c, stage, () => fn(c, ...args));
    return timed as T;
  }

  /** `fn` (synchronous work outside a transaction, such as decoding), timed under `stage`. */
  sync<A extends unknown[], R>(stage: string, fn: (...args: A) => R): (...args: A) => R {
    const listener = this.listener;
    if (!listener) return fn;
    return (...args: A) => {
      const cpu = this.cpu.start();
      const t0 = process.hrtime.bigint();
      try {
        return fn(...args);
      } finally {
        const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
        listener(stage, seconds, { seconds, cpuSeconds: this.cpu.stop(cpu) });
      }
    };
  }

  /** Runs `fn`, work on `c`, timed under `stage` (the form a hook such as applyProjections' `stage` takes). */
  async run<T>(c: PoolClient, stage: string, fn: () => Promise<T>): Promise<T> {
    const listener = this.listener;
    if (!listener) return fn();
    // once per pooled connection, before the clock starts: whether its backend's CPU can be read
    if (!this.backends.has(c)) await this.learnBackend(c);
    const pid = this.backends.get(c);
    const db0 = pid ? backendCpuSeconds(pid) : undefined;
    const cpu = this.cpu.start();
    const t0 = process.hrtime.bigint();
    try {
      return await fn();
    } finally {
      const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
      const cpuSeconds = this.cpu.stop(cpu);
      const db1 = db0 !== undefined ? backendCpuSeconds(pid!) : undefined;
      listener(stage, seconds, {
        seconds,
        cpuSeconds,
        dbCpuSeconds: db1 !== undefined ? db1 - db0! : undefined,
      });
    }
  }

  private async learnBackend(c: PoolClient): Promise<void> {
    const r = await c.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
    const pid = Number(r.rows[0]?.pid);
    this.backends.set(c, isLocalPostgres(pid) ? pid : null);
  }
}
