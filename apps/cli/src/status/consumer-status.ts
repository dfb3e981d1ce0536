import type { PartitionWatermarks } from '@flaglens/kafka';
import { DEFAULT_STALL_SECONDS, lagOf, stallState, type StoredPosition } from '@flaglens/operations';

export interface PartitionStatus {
  partition: number;
  storedOffset: number | null;
  highWatermark: number;
  lag: number;
  lastEventAt: string | null;
  updatedAt: string | null;
  idleSeconds: number | null;
}

/** Lag per partition: high-water mark − stored next offset (nothing stored: from offset 0). Pure. */
export function partitionStatus(marks: PartitionWatermarks[], stored: StoredPosition[]): PartitionStatus[] {
  const byPartition = new Map(stored.map((s) => [s.partition, s]));
  return marks.map((m) => {
    const s = byPartition.get(m.partition);
    return {
      partition: m.partition,
      storedOffset: s?.nextOffset ?? null,
      highWatermark: m.high,
      lag: lagOf(m.high, s?.nextOffset ?? null),
      lastEventAt: s?.lastEventAt ?? null,
      updatedAt: s?.updatedAt ?? null,
      idleSeconds: s?.idleSeconds ?? null,
    };
  });
}

/**
 * Why `status` fails as a check (empty when healthy): the consumer group has no member (no projector
 * consumes), or a partition is stalled by the stall rule (`stallState`: behind while its stored position has
 * not moved for `stallSeconds`, or has never moved at all) and did not move on a second look (`moved`). Pure.
 */
export function statusProblems(
  partitions: PartitionStatus[],
  members: number,
  stallSeconds = DEFAULT_STALL_SECONDS,
  /** Partitions seen moving on a second look (a message that just arrived after a long idle time). */
  moved: ReadonlySet<number> = new Set(),
): string[] {
  const problems: string[] = [];
  if (members === 0) problems.push('the consumer group has no members: no projector is consuming');
  for (const p of partitions) {
    if (moved.has(p.partition) || stallState(p.lag, p.idleSeconds, stallSeconds) !== 'stalled') continue;
    if (p.idleSeconds === null)
      problems.push(`partition ${p.partition} is stalled: ${p.lag} message(s) behind, never consumed`);
    else
      problems.push(
        `partition ${p.partition} is stalled: ${p.lag} message(s) behind, no progress for ${Math.floor(p.idleSeconds)} s`,
      );
  }
  return problems;
}
