import type { Logger } from '@nestjs/common';
import type { Consumer } from 'kafkajs';
import { classifyFailure, retryTransient, type RetryOptions } from '@flaglens/persistence';
import type { BatchToApply } from './batch-applier';
import type { DeadLetter } from './classify-messages';
import { OffsetConflictError } from './batch-transaction';
import { PartitionBackoff } from './partition-backoff';

/** A batch handed to its transaction, and where it lies in its partition. */
export type FetchedBatch = BatchToApply & {
  first: number;
  last: number;
  size: number;
  highWatermark: number;
};

/**
 * Where each partition of a consumer stands and how it is moved: the positions it believes stored, the seeks
 * (to the stored position after a join, back to a failed batch's start), and the pause and backoff of a
 * partition whose batch failed or was refused. The partition consumer (partition-consumer.ts) hands batches
 * down; this keeps its partitions in place.
 */
export class PartitionControl {
  /** partition -> next offset the consumer believes is stored in Postgres */
  readonly positions = new Map<number, number>();
  /** partition -> offset last sought to because a batch started past the stored position */
  readonly soughtTo = new Map<number, number>();
  readonly backoff = new PartitionBackoff();

  constructor(
    private readonly topic: string,
    private readonly log: Logger,
    /** the kafkajs consumer while it runs */
    private readonly consumer: () => Consumer | undefined,
    private readonly loadPosition: (partition: number) => Promise<number>,
    private readonly stopping: () => boolean,
    private readonly onRefused?: (info: {
      topic: string;
      partition: number;
      offset: number;
      reason: string;
    }) => void,
  ) {}

  /** A (re)join: every partition restarts from its stored position, a wait from before is moot. */
  rejoined(): void {
    this.positions.clear();
    this.soughtTo.clear();
    this.backoff.rejoined();
  }

  /** After a join: each partition sought to the position stored in Postgres. */
  async seekToStoredPositions(partitions: number[]): Promise<void> {
    const topic = this.topic;
    for (const partition of partitions) {
      try {
        const stored = await this.loadPosition(partition);
        this.seek(partition, stored);
      } catch (e) {
        this.log.warn({
          msg: `could not seek ${topic}[${partition}] to its stored position: ${(e as Error).message}`,
          topic,
          partition,
        });
      }
    }
  }

  seek(partition: number, offset: number): void {
    this.consumer()?.seek({ topic: this.topic, partition, offset: String(offset) });
  }

  /**
   * A batch whose transaction failed (after the retries of transient failures): an offset conflict re-seeks to
   * the stored position; any other failure pauses the partition, seeks it back to the batch's stored position
   * and resumes it after a backoff, so the batch is applied again (even when nothing new is produced) and the
   * consumer itself never stops.
   */
  async failed(b: FetchedBatch, e: unknown, retry: RetryOptions): Promise<void> {
    const { topic, partition } = b;
    this.positions.delete(partition);
    if (e instanceof OffsetConflictError) {
      this.log.warn({ msg: e.message, topic, partition, offset: b.expectedOffset });
      try {
        const stored = await retryTransient(() => this.loadPosition(partition), retry);
        this.positions.set(partition, stored);
        this.seek(partition, stored);
      } catch (reload) {
        this.retryLater(b, reload);
      }
      return;
    }
    this.log.error({
      msg: `batch ${topic}[${partition}]@${b.first}..${b.last} failed (${classifyFailure(e)}): ${(e as Error).stack ?? e}`,
      topic,
      partition,
      offset: b.first,
      lastOffset: b.last,
      err: (e as Error).message,
    });
    this.retryLater(b, e);
  }

  /** Pauses a partition whose batch failed, seeks it back to the batch's start, and resumes it after a backoff. */
  retryLater(b: FetchedBatch, cause: unknown): void {
    const { topic, partition, expectedOffset: offset } = b;
    this.positions.delete(partition);
    if (this.stopping()) return;
    const { attempt, delayMs, over } = this.backoff.wait(partition);
    this.log.warn({
      msg: `${topic}[${partition}] will apply again from offset ${offset} in ${delayMs} ms (failure ${attempt} in a row): ${(cause as Error)?.message ?? cause}`,
      topic,
      partition,
      offset,
      attempt,
      delayMs,
    });
    try {
      this.consumer()?.pause([{ topic, partitions: [partition] }]);
      this.seek(partition, offset);
    } catch (e) {
      // kafkajs is restarting or rebalancing: the (re)join seeks every partition to its stored position
      this.log.warn({
        msg: `could not pause ${topic}[${partition}]: ${(e as Error).message}`,
        topic,
        partition,
      });
    }
    void over.then((resume) => {
      if (!resume) return;
      try {
        this.consumer()?.resume([{ topic, partitions: [partition] }]);
      } catch {
        // not running: the next start seeks to the stored positions
      }
    });
  }

  /** A batch refused for what it shows of the topic's setup: nothing applied, the partition paused. */
  refuse(partition: number, { offset, reason }: { offset: number; reason: string }): void {
    const topic = this.topic;
    this.positions.delete(partition);
    this.log.error({ msg: `${topic}[${partition}]@${offset}: ${reason}`, topic, partition, offset });
    try {
      this.consumer()?.pause([{ topic, partitions: [partition] }]);
    } catch {
      // not running: nothing more is fetched anyway
    }
    this.onRefused?.({ topic, partition, offset, reason });
  }

  /** A batch committed: the partition's new position, its dead letters said, its backoff reset. */
  succeeded(
    partition: number,
    nextOffset: number,
    dead: readonly Pick<DeadLetter, 'offset' | 'code' | 'reason'>[],
  ): void {
    const topic = this.topic;
    for (const d of dead)
      this.log.warn({
        msg: `dead-lettered ${topic}[${partition}]@${d.offset}: ${d.code}: ${d.reason}`,
        topic,
        partition,
        offset: d.offset,
        reasonCode: d.code,
      });
    this.backoff.succeeded(partition);
    this.positions.set(partition, nextOffset);
  }

  /** Kafka's copy of a position (KafkaCommits calls it one at a time per partition); never rejects. */
  async commitToKafka(partition: number, offset: number): Promise<void> {
    const topic = this.topic;
    try {
      await this.consumer()?.commitOffsets([{ topic, partition, offset: String(offset) }]);
    } catch (e) {
      this.log.warn({
        msg: `kafka offset commit for ${topic}[${partition}] failed: ${(e as Error).message}`,
        topic,
        partition,
        offset,
      });
    }
  }
}
