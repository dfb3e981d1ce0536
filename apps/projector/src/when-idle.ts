/** When a background job of the projector looks for work (times in ms). */
export interface WhenIdleTiming {
  /** a look this often */
  everyMs: number;
  /** the first look this long after start (none: after everyMs) */
  firstMs?: number;
  /** the projector is idle when its last batch is older than this */
  idleMs: number;
  /** while batches flow, the job still runs when its last run started longer ago than this */
  atLeastMs: number;
}

/**
 * A background job of the projector, off the batches' path: run at each look while the projector is idle, and
 * at least every `atLeastMs` while batches flow (a backfill must not wait for it forever, nor share its CPU with
 * it every few seconds). One run at a time: a look while one runs does nothing. `stop` waits for the run.
 */
export class WhenIdle {
  private timer?: NodeJS.Timeout;
  private first?: NodeJS.Timeout;
  private closing = false;
  private running?: Promise<void>;
  private lastRunAt = 0;

  constructor(
    /** Date.now() of the projector's last committed batch (ConsumerProgressMonitor.lastBatchAt) */
    private readonly lastBatchAt: () => number,
    private readonly timing: WhenIdleTiming,
    /** the job, told whether batches flow; it must not reject (a failure is its own to report) */
    private readonly job: (busy: boolean) => Promise<unknown>,
  ) {}

  /** True once `stop` was called: a long run ends early. */
  get stopping(): boolean {
    return this.closing;
  }

  start(): void {
    const look = () => {
      const now = Date.now();
      const busy = now - this.lastBatchAt() < this.timing.idleMs;
      if (this.closing || this.running || (busy && now - this.lastRunAt < this.timing.atLeastMs)) return;
      this.lastRunAt = now;
      this.running = this.job(busy)
        .then(() => undefined)
        .finally(() => (this.running = undefined));
    };
    if (this.timing.firstMs !== undefined) this.first = setTimeout(look, this.timing.firstMs).unref();
    this.timer = setInterval(look, this.timing.everyMs).unref();
  }

  async stop(): Promise<void> {
    this.closing = true;
    clearTimeout(this.first);
    clearInterval(this.timer);
    await this.running;
  }
}
