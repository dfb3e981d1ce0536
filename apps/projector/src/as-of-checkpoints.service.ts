import { Injectable, Logger, OnApplicationBootstrap, BeforeApplicationShutdown } from '@nestjs/common';
import { AppConfig } from '@flaglens/config';
import { ActiveVersionPool } from '@flaglens/persistence';
import { makeCheckpoint } from '@flaglens/projections';
import { ConsumerProgressMonitor } from './consumer-progress.monitor';
import { WhenIdle, type WhenIdleTiming } from './when-idle';

/**
 * The checkpoints are looked at every 10 s (a few small reads when none is due), when the projector has been
 * idle 1 s, or at least every minute while batches flow.
 */
export const CHECKPOINT_LOOKS: WhenIdleTiming = { everyMs: 10_000, idleMs: 1_000, atLeastMs: 60_000 };
/**
 * A look makes checkpoints while they are due, for at most this long when the projector is idle, and this long
 * when it is busy (a backfill: the checkpoints take the CPU the batches need); the next look goes on.
 */
export const CHECKPOINTS_BUDGET_MS = 20_000;
export const CHECKPOINTS_BUSY_BUDGET_MS = 2_000;
/** The checkpoints' connection, as `pg_stat_activity` names it. */
export const CHECKPOINTS_APPLICATION = 'flaglens-projector-checkpoints';

/**
 * Makes the checkpoints that reads as of an instant start from (libs/projections/src/as-of.ts,
 * `makeCheckpoint`; docs/design.md, "Reads as of an instant"), every AS_OF_CHECKPOINT_EVENTS events of the
 * active version's log, off the batches' path, on a connection of its own; drops those a late event made
 * unusable. A rebuild's new version gets its own once it is active.
 */
@Injectable()
export class AsOfCheckpoints implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly log = new Logger('AsOfCheckpoints');
  private readonly active: ActiveVersionPool;
  private readonly looks: WhenIdle;
  private lastFailure?: string;

  constructor(
    private readonly config: AppConfig,
    monitor: ConsumerProgressMonitor,
  ) {
    // one connection, kept while idle: it keeps its fresh tables from one checkpoint to the next
    this.active = new ActiveVersionPool(config.DATABASE_URL, 1, 5_000, 0, 0, CHECKPOINTS_APPLICATION);
    this.looks = new WhenIdle(
      () => monitor.lastBatchAt,
      CHECKPOINT_LOOKS,
      (busy) => this.run(busy ? CHECKPOINTS_BUSY_BUDGET_MS : CHECKPOINTS_BUDGET_MS),
    );
  }

  onApplicationBootstrap(): void {
    if (this.config.AS_OF_CHECKPOINT_EVENTS > 0) this.looks.start();
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.looks.stop();
    await this.active.close();
  }

  /** Never rejects: a failure is logged once and the next look tries again. */
  async run(budgetMs = CHECKPOINTS_BUDGET_MS): Promise<number> {
    let made = 0;
    try {
      await this.active.refresh();
      const c = await this.active.pool().connect();
      let failed: Error | undefined;
      try {
        const t0 = Date.now();
        let last;
        while (!this.looks.stopping && Date.now() - t0 < budgetMs) {
          const m = await makeCheckpoint(c, this.config.AS_OF_CHECKPOINT_EVENTS, { keep: true });
          if (!m) break;
          made++;
          last = m;
        }
        if (last)
          this.log.log(
            `made ${made} as-of checkpoints, the newest as of ${last.upto} (${last.events} events), in ${Date.now() - t0} ms`,
          );
      } catch (e) {
        failed = e as Error;
        throw e;
      } finally {
        c.release(failed);
      }
      this.lastFailure = undefined;
    } catch (e) {
      const failure = (e as Error).message;
      if (failure !== this.lastFailure) this.log.warn(`could not make as-of checkpoints: ${failure}`);
      this.lastFailure = failure;
    }
    return made;
  }
}
