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

/**
 * The events with `late` of them arriving late: given ids above every other while keeping their old
 * `createdAt` (as Unleash 7's `user-created` amend rows are), so they are fed after events newer than them.
 * Which events: a deterministic pick by `seed`. Sorted by id, as a log of ids would hold them.
 */
export function withLateArrivals(events: FlagEvent[], seed: number, late: number): FlagEvent[] {
  let next = Math.max(...events.map((e) => e.id)) + 1;
  const moved = new Set<number>();
  for (let i = 0; i < late; i++) moved.add(events[(seed * 7919 + i * 104_729) % events.length].id);
  return events.map((e) => (moved.has(e.id) ? { ...e, id: next++ } : e)).sort((a, b) => a.id - b.id);
}
