import type { FlagEvent } from '@flaglens/contract';
import { prng } from '@flaglens/testing/generate-history';

/** A test event with defaults (for the projections' unit tests). */
export function testEvent(id: number, type: string, o: Partial<FlagEvent> = {}): FlagEvent {
  return {
    id,
    createdAt: new Date(Date.UTC(2026, 0, 1) + id * 1000).toISOString(),
    type,
    createdBy: 'admin',
    createdByUserId: 1,
    environment: null,
    project: null,
    featureName: null,
    data: null,
    preData: null,
    tags: null,
    ...o,
  };
}

/** The Kafka key of a test event, as producers key them: the flag, else the project, else the instance. */
export const testKey = (e: FlagEvent): string => e.featureName ?? e.project ?? 'instance';

/**
 * A random interleaving of the keys' event sequences (each key's order kept, as Kafka does), cut into random
 * batches of 1..maxBatch events (the projections' interleaving tests).
 */
export function interleavedBatches(events: FlagEvent[], seed: number, maxBatch: number): FlagEvent[][] {
  const rnd = prng(seed);
  const queues = new Map<string, FlagEvent[]>();
  for (const e of events) queues.set(testKey(e), [...(queues.get(testKey(e)) ?? []), e]);
  const live = [...queues.values()];
  const order: FlagEvent[] = [];
  while (live.length > 0) {
    const i = Math.floor(rnd() * live.length);
    order.push(live[i].shift()!);
    if (live[i].length === 0) live.splice(i, 1);
  }
  const batches: FlagEvent[][] = [];
  for (let i = 0; i < order.length;) {
    const n = 1 + Math.floor(rnd() * maxBatch);
    batches.push(order.slice(i, i + n));
    i += n;
  }
  return batches;
}
