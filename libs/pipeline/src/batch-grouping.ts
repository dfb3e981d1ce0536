import { Logger } from '@nestjs/common';
import type { ApplyOutcome, BatchToApply } from './batch-applier';

/** What grouping needs of the applier: one batch alone, or batches of several partitions in one transaction. */
export interface GroupApplier {
  apply(batch: BatchToApply): Promise<ApplyOutcome>;
  applyGroup(batches: BatchToApply[]): Promise<ApplyOutcome[]>;
}

/** A batch applied: its outcome and the seconds of the transaction it went in. */
export interface Applied {
  outcome: ApplyOutcome;
  seconds: number;
}

/**
 * At most this many events in one transaction of several partitions' batches: a fetch of a catching-up
 * consumer (batches of thousands) still goes one batch per transaction, as many at once as `concurrency`.
 */
export const GROUP_MAX_EVENTS = 5000;

const log = new Logger('BatchGrouping');

interface Waiting {
  batch: BatchToApply;
  resolve: (applied: Applied) => void;
  reject: (error: unknown) => void;
}

/**
 * Batches waiting for a transaction: at most `concurrency` transactions run at once, and a free one takes every
 * waiting batch (of different partitions, up to `maxEvents` events) into ONE transaction (applyGroup), so under
 * steady load the partitions share one fixed cost instead of queueing behind each other's. A group that fails
 * for any reason writes nothing; its batches are then applied one by one (`apply`: isolation of bad events), and
 * a batch that fails alone is rejected with its error, for the caller to retry or re-seek.
 */
export class BatchGrouping {
  private readonly waiting: Waiting[] = [];
  private running = 0;
  private scheduled = false;

  constructor(
    private readonly applier: GroupApplier,
    private readonly concurrency: number,
    private readonly maxEvents = GROUP_MAX_EVENTS,
  ) {}

  /** Queues a batch (one per partition at a time); resolves once its transaction committed. */
  submit(batch: BatchToApply): Promise<Applied> {
    return new Promise((resolve, reject) => {
      this.waiting.push({ batch, resolve, reject });
      if (this.scheduled) return;
      // the batches kafkajs hands over from one fetch arrive within a turn of the event loop: gather them
      this.scheduled = true;
      setImmediate(() => {
        this.scheduled = false;
        this.pump();
      });
    });
  }

  private pump(): void {
    while (this.running < Math.max(1, this.concurrency) && this.waiting.length > 0) {
      let events = sizeOf(this.waiting[0].batch);
      let n = 1;
      while (n < this.waiting.length && events + sizeOf(this.waiting[n].batch) <= this.maxEvents) {
        events += sizeOf(this.waiting[n].batch);
        n++;
      }
      const group = this.waiting.splice(0, n);
      this.running++;
      void this.run(group).finally(() => {
        this.running--;
        this.pump();
      });
    }
  }

  /** Never rejects: each batch's promise is settled. */
  private async run(group: Waiting[]): Promise<void> {
    if (group.length > 1) {
      const t0 = process.hrtime.bigint();
      try {
        const outcomes = await this.applier.applyGroup(group.map((w) => w.batch));
        const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
        group.forEach((w, i) => w.resolve({ outcome: outcomes[i], seconds }));
        return;
      } catch (e) {
        // nothing was written: each batch on its own below
        log.debug(
          `a group of ${group.length} batches failed (${(e as Error).message}); applying them one by one`,
        );
      }
    }
    for (const w of group) {
      const t0 = process.hrtime.bigint();
      try {
        const outcome = await this.applier.apply(w.batch);
        w.resolve({ outcome, seconds: Number(process.hrtime.bigint() - t0) / 1e9 });
      } catch (e) {
        w.reject(e);
      }
    }
  }
}

/** The messages a batch spans (accepted or dead): what it costs a transaction. */
const sizeOf = (b: BatchToApply): number => b.accepted.length + b.dead.length;
