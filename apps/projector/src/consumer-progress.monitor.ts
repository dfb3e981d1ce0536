import { Inject, Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import type { Kafka } from 'kafkajs';
import { Database } from '@flaglens/persistence';
import { AppConfig } from '@flaglens/config';
import { topicWatermarks } from '@flaglens/kafka';
import { assertSchemaName } from '@flaglens/persistence';
import { PartitionProgress, ProjectorMetrics, withTimeout } from '@flaglens/observability';
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
export class ConsumerProgressMonitor implements OnApplicationShutdown {
  private readonly log = new Logger('ConsumerProgress');
  readonly progress = new PartitionProgress();
  private timer?: NodeJS.Timeout;
  private refreshing?: Promise<void>;
  private activeSchema: string | null = null;
  private closed = false;

  constructor(
    @Inject(KAFKA) private readonly kafka: Kafka,
    private readonly config: AppConfig,
    private readonly db: Database,
    private readonly metrics: ProjectorMetrics,
  ) {}

  start(): void {
    if (this.timer || this.closed) return;
    void this.refresh();
    this.timer = setInterval(() => void this.refresh(), PROGRESS_REFRESH_MS);
    this.timer.unref();
  }

  onApplicationShutdown(): void {
    this.closed = true;
    clearInterval(this.timer);
  }

  /** After a committed batch: the position it stored and the high-water mark it was fetched with. */
  onBatch(partition: number, nextOffset: number, highWatermark: number, lastEventAt: string | null): void {
    const now = Date.now();
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
      this.storedPositions(),
    ]);
    const now = Date.now();
    if (stored.status === 'fulfilled') {
      if (stored.value.schema !== this.activeSchema) {
        // a rebuild switched versions: its positions are other ones
        if (this.activeSchema !== null) this.progress.reset();
        this.activeSchema = stored.value.schema;
      }
      for (const r of stored.value.rows)
        this.progress.observeStored(r.partition, Number(r.next_offset), r.last_event_at, now);
    } else {
      this.log.warn({ msg: `stored positions unavailable: ${String(stored.reason)}`, topic });
    }
    if (marks.status === 'fulfilled') {
      for (const m of marks.value) this.progress.observeHigh(m.partition, m.high, now);
    } else {
      this.log.warn({ msg: `high-water marks unavailable: ${String(marks.reason)}`, topic });
    }
    this.publish(now);
  }

  private publish(now: number): void {
    this.metrics.publishProgress(this.config.KAFKA_GROUP_ID, this.config.KAFKA_TOPIC, this.progress, now);
  }

  /** Stored positions of the active version, without waiting on locks (a stuck projector must not stall this). */
  private async storedPositions(): Promise<{
    schema: string;
    rows: { partition: number; next_offset: string; last_event_at: Date | null }[];
  }> {
    const client = await this.db.connect();
    try {
      await client.query('BEGIN');
      await client.query(`SET LOCAL lock_timeout = '${CHECK_TIMEOUT_MS}ms'`);
      await client.query(`SET LOCAL statement_timeout = '${CHECK_TIMEOUT_MS}ms'`);
      const active = await client.query<{ schema_name: string }>(
        `SELECT schema_name FROM public.projection_versions WHERE status = 'active'`,
      );
      if (active.rows.length === 0) throw new Error('no active projection version');
      const schema = assertSchemaName(active.rows[0].schema_name);
      const r = await client.query<{ partition: number; next_offset: string; last_event_at: Date | null }>(
        `SELECT partition, next_offset, last_event_at FROM ${schema}.projector_offsets WHERE group_id = $1 AND topic = $2`,
        [this.config.KAFKA_GROUP_ID, this.config.KAFKA_TOPIC],
      );
      await client.query('COMMIT');
      return { schema, rows: r.rows };
    } catch (e) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw e;
    } finally {
      client.release();
    }
  }
}
