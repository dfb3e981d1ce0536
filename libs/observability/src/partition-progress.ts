import { lagOf, stallState } from '@flaglens/operations';

/**
 * What the projector knows about each partition it watches: the broker's high-water mark, the stored next
 * offset (Postgres, active version), the createdAt of the last applied event, and since when the stored
 * position has not moved. Pure (the caller passes the time), so lag and "stuck" are unit-tested; lag and
 * "stuck" are decided by the operations feature's rule (`lagOf`, `stallState`), as the CLI and the console do.
 */
interface PartitionState {
  high: number | null;
  stored: number | null;
  lastEventAtMs: number | null;
  /** when the stored position last moved, or was last seen caught up */
  movedAtMs: number;
}

export interface PartitionReport {
  partition: number;
  high: number | null;
  stored: number | null;
  lag: number | null;
  lastEventAt: string | null;
  /** seconds since the stored position last moved (0 while caught up) */
  stillSeconds: number;
}

export class PartitionProgress {
  private readonly state = new Map<number, PartitionState>();

  private get(partition: number, nowMs: number): PartitionState {
    let s = this.state.get(partition);
    if (!s) {
      s = { high: null, stored: null, lastEventAtMs: null, movedAtMs: nowMs };
      this.state.set(partition, s);
    }
    return s;
  }

  /** Forget every position (the active projection version changed: its offsets are other ones). */
  reset(): void {
    this.state.clear();
  }

  /** Newly assigned partitions: their stall clock starts now (joining and seeking take time). */
  assigned(partitions: number[], nowMs: number): void {
    for (const p of partitions) this.get(p, nowMs).movedAtMs = nowMs;
  }

  partitions(): number[] {
    return [...this.state.keys()].sort((a, b) => a - b);
  }

  observeHigh(partition: number, high: number, nowMs: number): void {
    const s = this.get(partition, nowMs);
    // caught up until now: the stall clock starts with these new messages, not at the last look
    if (lagOfState(s) === 0 && high > (s.high ?? 0)) s.movedAtMs = nowMs;
    s.high = Math.max(s.high ?? 0, high);
    this.touchIfCaughtUp(s, nowMs);
  }

  observeStored(partition: number, stored: number, lastEventAt: Date | string | null, nowMs: number): void {
    const s = this.get(partition, nowMs);
    if (s.stored === null || stored > s.stored) {
      if (s.stored !== null) s.movedAtMs = nowMs;
      s.stored = stored;
    }
    if (lastEventAt !== null) {
      const t = new Date(lastEventAt).getTime();
      if (!Number.isNaN(t) && (s.lastEventAtMs === null || t > s.lastEventAtMs)) s.lastEventAtMs = t;
    }
    this.touchIfCaughtUp(s, nowMs);
  }

  private touchIfCaughtUp(s: PartitionState, nowMs: number): void {
    if (lagOfState(s) === 0) s.movedAtMs = nowMs;
  }

  lag(partition: number): number | null {
    const s = this.state.get(partition);
    return s ? lagOfState(s) : null;
  }

  /** now − createdAt of the last applied event while the partition is behind; 0 when caught up. */
  timeLagSeconds(partition: number, nowMs: number): number | null {
    const s = this.state.get(partition);
    if (!s) return null;
    const lag = lagOfState(s);
    if (lag === null) return null;
    if (lag === 0) return 0;
    if (s.lastEventAtMs === null) return null;
    return Math.max(0, (nowMs - s.lastEventAtMs) / 1000);
  }

  report(partition: number, nowMs: number): PartitionReport {
    const s = this.get(partition, nowMs);
    return {
      partition,
      high: s.high,
      stored: s.stored,
      lag: lagOfState(s),
      lastEventAt: s.lastEventAtMs === null ? null : new Date(s.lastEventAtMs).toISOString(),
      stillSeconds: lagOfState(s) === 0 ? 0 : Math.round((nowMs - s.movedAtMs) / 100) / 10,
    };
  }

  /**
   * The partitions among `partitions` that are behind and whose stored position has not moved for
   * `stallSeconds`: stuck (`stallState`). Behind but moving is not stuck.
   */
  stalled(partitions: number[], stallSeconds: number, nowMs: number): PartitionReport[] {
    return partitions
      .map((p) => this.report(p, nowMs))
      .filter((r) => stallState(r.lag, r.stillSeconds, stallSeconds) === 'stalled');
  }
}

function lagOfState(s: PartitionState): number | null {
  return lagOf(s.high, s.stored);
}
