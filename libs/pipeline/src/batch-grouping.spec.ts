import type { ApplyOutcome, BatchToApply } from './batch-applier';
import { BatchGrouping, type GroupApplier } from './batch-grouping';

const batch = (partition: number, events: number): BatchToApply => ({
  topic: 't',
  partition,
  expectedOffset: 0,
  nextOffset: events,
  accepted: Array.from({ length: events }, (_, i) => ({
    event: { id: partition * 1000 + i } as never,
    knownType: true,
    topic: 't',
    partition,
    offset: i,
  })),
  dead: [],
});

const outcomeOf = (b: BatchToApply): ApplyOutcome => ({
  stored: b.accepted.length,
  duplicates: 0,
  deadLettered: 0,
  rejected: [],
  storedEvents: b.accepted,
});

/**
 * An applier in memory: records each transaction (the partitions in it), holds them open until `release()`,
 * and fails the transactions that hold a partition of `failing` (a group with it, or it alone when `alone`).
 */
class RecordingApplier implements GroupApplier {
  readonly transactions: number[][] = [];
  open = 0;
  maxOpen = 0;
  hold = false;
  private readonly held: (() => void)[] = [];
  constructor(
    private readonly failing = new Set<number>(),
    private readonly alone = false,
  ) {}
  release(): void {
    this.hold = false;
    for (const go of this.held.splice(0)) go();
  }
  private async transaction(batches: BatchToApply[]): Promise<ApplyOutcome[]> {
    this.transactions.push(batches.map((b) => b.partition));
    this.maxOpen = Math.max(this.maxOpen, ++this.open);
    try {
      if (this.hold) await new Promise<void>((r) => this.held.push(r));
      const bad = batches.find((b) => this.failing.has(b.partition));
      if (bad && (batches.length > 1 || this.alone)) throw new Error(`partition ${bad.partition} failed`);
      return batches.map(outcomeOf);
    } finally {
      this.open--;
    }
  }
  async apply(b: BatchToApply): Promise<ApplyOutcome> {
    return (await this.transaction([b]))[0];
  }
  applyGroup(batches: BatchToApply[]): Promise<ApplyOutcome[]> {
    return this.transaction(batches);
  }
}

describe('BatchGrouping', () => {
  it('puts the batches that wait together into one transaction, up to the events a group holds', async () => {
    const applier = new RecordingApplier();
    const grouping = new BatchGrouping(applier, 1, 100);
    const applied = await Promise.all([
      grouping.submit(batch(0, 40)),
      grouping.submit(batch(1, 50)),
      grouping.submit(batch(2, 20)), // 110 events: a transaction of its own
    ]);
    expect(applier.transactions).toEqual([[0, 1], [2]]);
    expect(applied.map((a) => a.outcome.stored)).toEqual([40, 50, 20]);
    // the batches of one transaction share its time
    expect(applied[0].seconds).toBe(applied[1].seconds);
  });

  it('runs at most `concurrency` transactions at once; the batches that arrive meanwhile wait and go together', async () => {
    const applier = new RecordingApplier();
    applier.hold = true;
    const grouping = new BatchGrouping(applier, 2);
    const first = [grouping.submit(batch(0, 1))];
    await new Promise((r) => setImmediate(r));
    first.push(grouping.submit(batch(1, 1)));
    await new Promise((r) => setImmediate(r));
    // both slots busy: these wait
    const later = [grouping.submit(batch(2, 1)), grouping.submit(batch(3, 1)), grouping.submit(batch(4, 1))];
    await new Promise((r) => setImmediate(r));
    expect(applier.transactions).toEqual([[0], [1]]);
    applier.release();
    await Promise.all([...first, ...later]);
    expect(applier.transactions).toEqual([[0], [1], [2, 3, 4]]);
    expect(applier.maxOpen).toBe(2);
  });

  it('applies a failed group batch by batch; a batch that fails alone is rejected with its error, its neighbours applied', async () => {
    const applier = new RecordingApplier(new Set([1]), true);
    const grouping = new BatchGrouping(applier, 1);
    const results = await Promise.allSettled([
      grouping.submit(batch(0, 2)),
      grouping.submit(batch(1, 2)),
      grouping.submit(batch(2, 2)),
    ]);
    expect(applier.transactions).toEqual([[0, 1, 2], [0], [1], [2]]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect((results[1] as PromiseRejectedResult).reason).toEqual(new Error('partition 1 failed'));
  });

  it('applies a group that failed only as a group (an event isolated alone) one by one, all applied', async () => {
    const applier = new RecordingApplier(new Set([2]), false);
    const grouping = new BatchGrouping(applier, 1);
    const applied = await Promise.all([grouping.submit(batch(1, 3)), grouping.submit(batch(2, 3))]);
    expect(applier.transactions).toEqual([[1, 2], [1], [2]]);
    expect(applied.map((a) => a.outcome.stored)).toEqual([3, 3]);
  });
});
