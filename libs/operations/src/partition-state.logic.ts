import type { StoredPosition } from './consumer-positions.read-model';
import type { OperationsStatus, PartitionState } from './operations.types';

/**
 * The stall rule, written once: a partition is **caught up** when its lag is 0, **behind** while its stored
 * position keeps moving, and **stalled** when it is behind and its stored position has not moved for
 * `stallSeconds` (or has never moved). "Behind" is not "stuck". The projector's readiness and metrics
 * (libs/observability `PartitionProgress`), the CLI's `status` check and the console's Operations page each
 * measure the lag and the time still their own way, and decide with these functions. Pure.
 */

/** How long a partition may stay behind without its stored position moving (PROJECTOR_STALL_SECONDS's default). */
export const DEFAULT_STALL_SECONDS = 60;

/** Messages behind: high-water mark − stored next offset (nothing stored: from offset 0); null without a mark. */
export function lagOf(high: number, stored: number | null): number;
export function lagOf(high: number | null, stored: number | null): number | null;
export function lagOf(high: number | null, stored: number | null): number | null {
  if (high === null) return null;
  return Math.max(0, high - (stored ?? 0));
}

/**
 * The state of a partition `lag` messages behind whose stored position has not moved for `stillSeconds`
 * (null: it never moved, or nothing is stored).
 */
export function stallState(
  lag: number | null,
  stillSeconds: number | null,
  stallSeconds: number,
): PartitionState {
  if (lag === null) return 'unknown';
  if (lag === 0) return 'caught-up';
  if (stillSeconds === null) return 'stalled';
  return stillSeconds >= stallSeconds ? 'stalled' : 'behind';
}

/**
 * The Operations page's partitions: those of the broker's high-water marks, or (the broker not answering,
 * `marks` null) those stored, with their lag, their lag in seconds (now − the last applied event's time while
 * behind, 0 when caught up) and their state. Pure.
 */
export function operationsPartitions(
  marks: { partition: number; high: number }[] | null,
  stored: StoredPosition[],
  nowMs: number,
  stallSeconds: number,
): OperationsStatus['partitions'] {
  const byPartition = new Map(stored.map((s) => [s.partition, s]));
  const partitionIds = marks ? marks.map((m) => m.partition) : [...byPartition.keys()].sort((a, b) => a - b);
  const high = new Map((marks ?? []).map((m) => [m.partition, m.high]));
  return partitionIds.map((p) => {
    const s = byPartition.get(p);
    const storedOffset = s ? s.nextOffset : null;
    const h = high.get(p) ?? null;
    const lag = lagOf(h, storedOffset);
    const lastEventAt = s?.lastEventAt ?? null;
    const updatedAt = s?.updatedAt ?? null;
    const lagSeconds =
      lag === null
        ? null
        : lag === 0
          ? 0
          : lastEventAt === null
            ? null
            : Math.max(0, (nowMs - Date.parse(lastEventAt)) / 1000);
    return {
      partition: p,
      storedOffset,
      highWatermark: h,
      lag,
      lagSeconds: lagSeconds === null ? null : Math.round(lagSeconds * 10) / 10,
      lastEventAt,
      updatedAt,
      status: stallState(
        lag,
        updatedAt === null ? null : (nowMs - Date.parse(updatedAt)) / 1000,
        stallSeconds,
      ),
    };
  });
}
