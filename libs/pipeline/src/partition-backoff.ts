/** The backoff of a partition whose batch failed: doubling from the first delay up to the largest. */
export const RETRY_DELAY_MS = { first: 500, max: 30_000 };

/** The wait after the `attempt`-th failure in a row (1, 2, …). */
export const backoffDelayMs = (attempt: number, delays = RETRY_DELAY_MS): number =>
  Math.min(delays.max, delays.first * 2 ** Math.min(attempt - 1, 16));

/**
 * Partitions that wait after a failed batch, each with its failures in a row: a failed batch is never thrown
 * into kafkajs (which gives up for good on a RangeError or TypeError) but applied again after a backoff. The
 * consumer pauses the partition and seeks it back; `wait` says when to resume it.
 */
export class PartitionBackoff {
  private readonly state = new Map<number, { attempt: number; waiting: boolean }>();
  private readonly timers = new Map<NodeJS.Timeout, () => void>();

  constructor(private readonly delays = RETRY_DELAY_MS) {}

  /** Whether the partition waits out a failure (its fetched batches are dropped meanwhile). */
  isWaiting(partition: number): boolean {
    return this.state.get(partition)?.waiting === true;
  }

  /**
   * One more failure of the partition: its attempt, its delay, and `over`, resolving true when the wait is over
   * (resume the partition), false when the backoff stopped first.
   */
  wait(partition: number): { attempt: number; delayMs: number; over: Promise<boolean> } {
    const s = this.state.get(partition) ?? { attempt: 0, waiting: false };
    s.attempt++;
    s.waiting = true;
    this.state.set(partition, s);
    const delayMs = backoffDelayMs(s.attempt, this.delays);
    const over = new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => {
        this.timers.delete(timer);
        s.waiting = false;
        resolve(true);
      }, delayMs);
      this.timers.set(timer, () => resolve(false));
    });
    return { attempt: s.attempt, delayMs, over };
  }

  /** The partition applied a batch: its failures in a row start again from none. */
  succeeded(partition: number): void {
    this.state.delete(partition);
  }

  /** A rejoin restarts every partition from its stored position: no wait from before it holds. */
  rejoined(): void {
    for (const s of this.state.values()) s.waiting = false;
  }

  /** Ends every wait (each `over` resolves false). */
  stop(): void {
    for (const [timer, cancel] of this.timers) {
      clearTimeout(timer);
      cancel();
    }
    this.timers.clear();
  }
}
