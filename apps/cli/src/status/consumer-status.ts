import type { PartitionWatermarks } from '@flaglens/kafka';

export interface StoredPosition {
  partition: number;
  nextOffset: number;
  lastEventAt: string | null;
  updatedAt: string | null;
}

export interface PartitionStatus {
  partition: number;
  storedOffset: number | null;
  highWatermark: number;
  lag: number;
  lastEventAt: string | null;
  updatedAt: string | null;
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
      lag: Math.max(0, m.high - (s?.nextOffset ?? 0)),
      lastEventAt: s?.lastEventAt ?? null,
      updatedAt: s?.updatedAt ?? null,
    };
  });
}
