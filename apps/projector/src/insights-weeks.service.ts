import { Injectable, Logger, OnApplicationBootstrap, BeforeApplicationShutdown } from '@nestjs/common';
import { AppConfig, clockFromConfig, type Clock } from '@flaglens/config';
import { BatchApplier } from '@flaglens/pipeline';
import { storeInsightsWeeks } from '@flaglens/projections';
import { ConsumerProgressMonitor } from './consumer-progress.monitor';
import { WhenIdle, type WhenIdleTiming } from './when-idle';

/**
 * The insights' closed weeks are checked every 5 s (a one-row read when nothing is to store), the first time
 * 500 ms after start. A store (which holds batches back while it computes) waits for the projector to be idle
 * 1 s, unless the last one is older than a minute: a backfill of old events keeps invalidating weeks, and
 * storing them every few seconds would slow it down.
 */
export const INSIGHTS_STORE_LOOKS: WhenIdleTiming = {
  everyMs: 5_000,
  firstMs: 500,
  idleMs: 1_000,
  atLeastMs: 60_000,
};

/**
 * Stores the insights' closed weeks (libs/projections/src/insights/insights.weeks.ts) off the batches' path:
 * shortly after start, then every few seconds when the projector is idle (at least every minute otherwise), in
 * the active version; only the weeks no longer valid (a late event, a feature-type change) or newly closed (a
 * new week) are computed; when all are stored, a check is a one-row read. The current week is "now" of
 * FLAGLENS_CLOCK when set, as for the api.
 */
@Injectable()
export class InsightsWeeksStore implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly log = new Logger('InsightsWeeks');
  private readonly clock: Clock;
  private readonly looks: WhenIdle;
  private lastFailure?: string;

  constructor(
    private readonly applier: BatchApplier,
    private readonly config: AppConfig,
    private readonly monitor: ConsumerProgressMonitor,
  ) {
    this.clock = clockFromConfig(config.FLAGLENS_CLOCK);
    this.looks = new WhenIdle(
      () => monitor.lastBatchAt,
      INSIGHTS_STORE_LOOKS,
      (busy) => this.store(busy),
    );
  }

  onApplicationBootstrap(): void {
    this.looks.start();
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.looks.stop();
  }

  /**
   * Stores chunk after chunk (each its own transaction, batches going on between them) while the projector is
   * idle; while batches flow, one chunk per look. Never rejects: a failure is logged and the next look tries
   * again.
   */
  async store(busy = false): Promise<void> {
    try {
      const t0 = Date.now();
      let weeks = 0;
      for (;;) {
        const chunk = await this.applier.transaction((c) =>
          storeInsightsWeeks(c, this.clock.now(), this.config.INSIGHTS_MAX_WEEKS),
        );
        weeks += chunk;
        const flowing = Date.now() - this.monitor.lastBatchAt < INSIGHTS_STORE_LOOKS.idleMs;
        if (chunk === 0 || busy || flowing || this.looks.stopping) break;
      }
      if (weeks > 0) this.log.log(`stored ${weeks} insights weeks in ${Date.now() - t0} ms`);
      this.lastFailure = undefined;
    } catch (e) {
      // said once per distinct failure (e.g. no active version yet, until the first migration)
      const failure = (e as Error).message;
      if (failure !== this.lastFailure) this.log.warn(`could not store the insights weeks: ${failure}`);
      this.lastFailure = failure;
    }
  }
}
