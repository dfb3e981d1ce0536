import { Inject, Injectable, Logger, BeforeApplicationShutdown } from '@nestjs/common';
import type { Kafka } from 'kafkajs';
import { Database } from '@flaglens/persistence';
import { AppConfig } from '@flaglens/config';
import { topicWatermarks } from '@flaglens/kafka';
import { appliedOf, ConsumerPositionsReadModel, type ConsumerPositions } from '@flaglens/operations';
import {
  clearRebuildProgress,
  PartitionProgress,
  ProjectorMetrics,
  reportRebuildProgress,
  withTimeout,
} from '@flaglens/observability';
import { KAFKA } from './tokens';

/** How often the lag is refreshed from the broker and Postgres, also while no batch arrives. */
export const PROGRESS_REFRESH_MS = 5000;
const CHECK_TIMEOUT_MS = 3000;

/**
 * Keeps each partition's lag current: the broker's high-water marks (topicWatermarks) and the positions
 * stored in Postgres (active version, this group), on a timer and after each batch. Feeds the lag
 * gauges and the readiness check ("behind but moving" vs "stuck"). Started by the live projector once its
 * consumer runs (while it waits for the broker or the topic, there is nothing to measure).
 */
@Injectable()
export class ConsumerProgressMonitor implements BeforeApplicationShutdown {
  private readonly log = new Logger('ConsumerProgress');
  readonly progress = new PartitionProgress();
  /** Date.now() of the last committed batch (0 before the first): whether the projector is idle. */
  lastBatchAt = 0;
  private timer?: NodeJS.Timeout;
  private refreshing?: Promise<void>;
  private activeSchema: string | null = null;
  /** The version a rebuild (CLI `rebuild`, another process) is building, while its progress is shown. */
  private rebuilding: number | null = null;
  private closed = false;
  private readonly positions: ConsumerPositionsReadModel;

  constructor(
    @Inject(KAFKA) private readonly kafka: Kafka,
    private readonly config: AppConfig,
    db: Database,
    private readonly metrics: ProjectorMetrics,
  ) {
    this.positions = new ConsumerPositionsReadModel(() => db.connect());
  }

  start(): void {
    if (this.timer || this.closed) return;
    void this.refresh();
    this.timer = setInterval(() => void this.refresh(), PROGRESS_REFRESH_MS);
    this.timer.unref();
  }

  beforeApplicationShutdown(): void {
    this.closed = true;
    clearInterval(this.timer);
  }

  /** After a committed batch: the position it stored and the high-water mark it was fetched with. */
  onBatch(partition: number, nextOffset: number, highWatermark: number, lastEventAt: string | null): void {
    const now = Date.now();
    this.lastBatchAt = now;
    this.progress.observeHigh(partition, highWatermark, now);
    this.progress.observeStored(partition, nextOffset, lastEventAt, now);
    this.publish(now);
  }

  /** One refresh at a time; each source has its own timeout, and a failing one leaves the other's data. */
  refresh(): Promise<void> {
    this.refreshing ??= this.refreshOnce().finally(() => (this.refreshing = undefined));
    return this.refreshing;
  }

  private async refreshOnce(): Promise<void> {
    const topic = this.config.KAFKA_TOPIC;
    const [marks, stored] = await Promise.allSettled([
      withTimeout(topicWatermarks(this.kafka, topic), CHECK_TIMEOUT_MS, 'watermarks'),
      // without waiting on locks: a stuck projector must not stall this
      this.positions.read(this.config.KAFKA_GROUP_ID, topic, { timeoutMs: CHECK_TIMEOUT_MS }),
    ]);
    const now = Date.now();
    if (stored.status === 'fulfilled' && stored.value.active === null) {
      this.log.warn({ msg: 'stored positions unavailable: no active projection version', topic });
    } else if (stored.status === 'fulfilled') {
      const schema = stored.value.active!.schema;
      if (schema !== this.activeSchema) {
        // a rebuild switched versions: its positions are other ones
        if (this.activeSchema !== null) this.progress.reset();
        this.activeSchema = schema;
      }
      for (const r of stored.value.positions)
        this.progress.observeStored(r.partition, r.nextOffset, r.lastEventAt, now);
    } else {
      this.log.warn({ msg: `stored positions unavailable: ${String(stored.reason)}`, topic });
    }
    if (marks.status === 'fulfilled') {
      for (const m of marks.value) this.progress.observeHigh(m.partition, m.high, now);
      if (stored.status === 'fulfilled') this.publishRebuild(stored.value.rebuild, marks.value);
    } else {
      this.log.warn({ msg: `high-water marks unavailable: ${String(marks.reason)}`, topic });
    }
    this.publish(now);
  }

  /**
   * A rebuild runs in its own short-lived process (`flaglens rebuild`), which nobody scrapes: the projector,
   * always scraped, reports its progress from the positions the rebuild stores (events applied so far and
   * the high-water marks it must reach), for the dashboard's rebuild panel.
   */
  private publishRebuild(building: ConsumerPositions['rebuild'], marks: { high: number }[]): void {
    if (this.rebuilding !== null && this.rebuilding !== building?.version)
      clearRebuildProgress(this.rebuilding);
    this.rebuilding = building?.version ?? null;
    if (!building) return;
    reportRebuildProgress(building.version, {
      applied: appliedOf(building.positions),
      target: marks.reduce((n, m) => n + m.high, 0),
    });
  }

  private publish(now: number): void {
    this.metrics.publishProgress(this.config.KAFKA_GROUP_ID, this.config.KAFKA_TOPIC, this.progress, now);
  }
}
