import { Logger } from '@nestjs/common';
import type { Consumer, EachBatchPayload, Kafka } from 'kafkajs';
import { classifyFailure, retryTransient, type RetryOptions } from '@flaglens/persistence';
import type { SourcedEvent } from '@flaglens/projections';
import { RELEASE_HEADER, releaseFromHeader, type EventFormat } from '@flaglens/contract';
import type { ApplyOutcome, BatchApplier, BatchToApply } from './batch-applier';
import { BatchGrouping, type Applied } from './batch-grouping';
import { OffsetConflictError } from './batch-transaction';
import { classifyMessages, type Classified, type DeadLetter } from './classify-messages';
import { placeFetched } from './fetched-batch';
import { KafkaCommits } from './kafka-commits';
import { PartitionBackoff } from './partition-backoff';

export interface PartitionConsumerOptions {
  topic: string;
  groupId: string;
  concurrency: number;
  sessionTimeoutMs: number;
  allowUnknownTypes: boolean;
  maxEventBytes: number;
  /** What the topic carries (EVENT_FORMAT); default `unleash`. */
  eventFormat?: EventFormat;
  /**
   * Offsets of dead letters an operator re-drove (a rebuild replays them as the re-drive accepted them, so a
   * rebuild never drops a re-driven event).
   */
  redriven?: (partition: number, offset: number) => boolean;
  /** Logger name (the live projector and a rebuild log under different names). */
  name?: string;
  /** Called after each committed batch (metrics, progress). */
  onBatch?: (info: {
    topic: string;
    partition: number;
    nextOffset: number;
    size: number;
    seconds: number;
    outcome: ApplyOutcome;
    dead: DeadLetter[];
    /** events of the batch that passed validation (stored or duplicates) */
    accepted: SourcedEvent[];
    /** the partition's high-water mark when the batch was fetched */
    highWatermark: number;
  }) => void;
  /** Called when this member joins the group, with the partitions it now owns. */
  onAssigned?: (partitions: number[]) => void;
  /** Called on each retry of a transient Postgres failure (metrics). */
  onRetry?: (info: { topic: string; partition: number; attempt: number; error: unknown }) => void;
  /** kafkajs's CRASH and STOP events (liveness: `restart: false` means the consumer stopped for good). */
  onCrash?: (info: { error: Error; restart: boolean }) => void;
  onStop?: () => void;
  /**
   * A message showed the topic is misconfigured (`topicSetupProblem`): its batch was not applied and its
   * partition is paused; `reason` names the fix. The owner stops (the live projector exits, a rebuild fails).
   */
  onRefused?: (info: { topic: string; partition: number; offset: number; reason: string }) => void;
}

/** A batch handed to its transaction, and where it lies in its partition. */
type FetchedBatch = BatchToApply & { first: number; last: number; size: number; highWatermark: number };

/**
 * The Kafka side of a projector (the live one, or a rebuild): kafkajs eachBatch with auto-commit off.
 * Postgres holds the positions; Kafka's committed offsets follow them so standard lag tools see progress.
 * It owns the consumer's lifecycle (join, seek to the stored positions, pause and backoff, stop) and hands each
 * batch down to its transaction (BatchGrouping, then BatchApplier); nothing below calls back into it.
 */
export class PartitionConsumer {
  private readonly log: Logger;
  private consumer?: Consumer;
  private readonly grouping: BatchGrouping;
  private readonly backoff = new PartitionBackoff();
  private readonly kafkaCommits: KafkaCommits;
  /** Decodes and validates a batch's messages (the `classify` stage). */
  private readonly classify: (
    partition: number,
    messages: EachBatchPayload['batch']['messages'],
  ) => Classified;
  /** partition -> next offset this consumer believes is stored in Postgres */
  private readonly positions = new Map<number, number>();
  /** partition -> offset we last sought to because a batch started past the stored position */
  private readonly soughtTo = new Map<number, number>();
  /**
   * partition -> the batch whose transaction is in flight (its promise never rejects). While it runs, kafkajs
   * already hands over the partition's next batch, which is classified meanwhile and applied once this one is
   * done: JavaScript and Postgres work overlap within a partition.
   */
  private readonly inFlight = new Map<number, { done: Promise<void>; nextOffset: number }>();
  private stopping = false;
  private joined = false;
  private lastProgressAt = Date.now();

  constructor(
    private readonly kafka: Kafka,
    private readonly applier: BatchApplier,
    private readonly opts: PartitionConsumerOptions,
  ) {
    this.log = new Logger(opts.name ?? 'PartitionConsumer');
    this.grouping = new BatchGrouping(applier, opts.concurrency);
    this.kafkaCommits = new KafkaCommits((partition, offset) => this.commitToKafka(partition, offset));
    const redriven = opts.redriven;
    this.classify = applier.timer.sync('classify', (partition, messages) =>
      classifyMessages(
        opts.topic,
        partition,
        messages.map((m) => ({
          offset: Number(m.offset),
          key: m.key,
          value: m.value,
          release: releaseFromHeader(m.headers?.[RELEASE_HEADER]),
        })),
        { allowUnknownTypes: opts.allowUnknownTypes, maxBytes: opts.maxEventBytes, format: opts.eventFormat },
        redriven && ((offset) => redriven(partition, offset)),
      ),
    );
  }

  /** Partitions assigned to this member at the last join. */
  assigned: number[] = [];

  get isJoined(): boolean {
    return this.joined;
  }

  get lastProgress(): number {
    return this.lastProgressAt;
  }

  async start(): Promise<void> {
    const topic = this.opts.topic;
    const consumer = this.kafka.consumer({
      groupId: this.opts.groupId,
      sessionTimeout: this.opts.sessionTimeoutMs,
      heartbeatInterval: Math.min(3000, Math.floor(this.opts.sessionTimeoutMs / 3)),
      rebalanceTimeout: 60000,
      // ~4k events of ~500 B per partition batch; the broker still returns one larger message whole (KIP-74).
      // Bounded so the projector stays small (bench: peak RSS).
      maxBytesPerPartition: 2 * 1024 * 1024,
      maxBytes: 8 * 1024 * 1024,
      maxWaitTimeInMs: 100,
      retry: { retries: 10 },
      allowAutoTopicCreation: false,
    });
    this.consumer = consumer;
    consumer.on(consumer.events.GROUP_JOIN, (e) => {
      this.joined = true;
      const mine = e.payload.memberAssignment[topic] ?? [];
      this.assigned = [...mine].sort((a, b) => a - b);
      this.opts.onAssigned?.(this.assigned);
      this.log.log(
        `joined group ${e.payload.groupId} as ${e.payload.memberId}; partitions ${JSON.stringify(mine)}`,
      );
      this.positions.clear();
      this.soughtTo.clear();
      // a wait from before the join is moot: every partition restarts from its stored position
      this.backoff.rejoined();
      void this.seekToStoredPositions(mine);
    });
    consumer.on(consumer.events.CRASH, (e) => {
      this.joined = false;
      this.log.error(`consumer crashed: ${e.payload.error?.message}; restart=${e.payload.restart}`);
      this.opts.onCrash?.({ error: e.payload.error, restart: e.payload.restart });
    });
    consumer.on(consumer.events.STOP, () => {
      this.joined = false;
      this.opts.onStop?.();
    });
    try {
      await consumer.connect();
      await consumer.subscribe({ topic, fromBeginning: true });
    } catch (e) {
      await consumer.disconnect().catch(() => undefined); // the caller may start again later
      throw e;
    }
    await consumer.run({
      autoCommit: false,
      eachBatchAutoResolve: false,
      partitionsConsumedConcurrently: this.opts.concurrency,
      eachBatch: (payload) => this.handleBatch(payload),
    });
    this.log.log(`consuming ${topic} as group ${this.opts.groupId}`);
  }

  /** Finishes the batch in flight, then leaves the group. */
  async stop(): Promise<void> {
    this.stopping = true;
    this.backoff.stop();
    // kafkajs finishes the batch it is handing over before it disconnects; then the transactions in flight end
    await this.consumer?.disconnect().catch((e) => this.log.warn(`disconnect: ${(e as Error).message}`));
    await Promise.all([...this.inFlight.values()].map((f) => f.done));
    await this.kafkaCommits.settled();
  }

  private async seekToStoredPositions(partitions: number[]): Promise<void> {
    const topic = this.opts.topic;
    for (const partition of partitions) {
      try {
        const stored = await this.applier.loadPosition(topic, partition);
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

  private seek(partition: number, offset: number): void {
    this.consumer?.seek({ topic: this.opts.topic, partition, offset: String(offset) });
  }

  private async handleBatch({
    batch,
    resolveOffset,
    heartbeat,
    isRunning,
    isStale,
  }: EachBatchPayload): Promise<void> {
    if (!isRunning() || isStale() || batch.messages.length === 0) return;
    const { topic, partition } = batch;
    const retry: RetryOptions = {
      shouldStop: () => this.stopping || !isRunning(),
      onRetry: async (e: unknown, attempt: number, delay: number) => {
        this.log.warn({
          msg: `postgres unavailable for ${topic}[${partition}] (attempt ${attempt}, next in ${delay} ms): ${(e as Error).message}`,
          topic,
          partition,
          attempt,
          delayMs: delay,
          err: (e as Error).message,
        });
        this.opts.onRetry?.({ topic, partition, attempt, error: e });
        await heartbeat().catch(() => undefined);
      },
    };

    // The previous batch of this partition may still be in its transaction: classify this one meanwhile,
    // against the position that batch leaves (checked once it is done).
    const previous = this.inFlight.get(partition);
    const early =
      previous === undefined
        ? undefined
        : {
            from: previous.nextOffset,
            classified: this.classify(
              partition,
              batch.messages.filter((m) => Number(m.offset) >= previous.nextOffset),
            ),
          };
    if (previous !== undefined) await previous.done;
    // the partition waits out a failed batch: it was sought back to its stored position and is paused
    if (this.backoff.isWaiting(partition)) return;

    let expected = this.positions.get(partition);
    if (expected === undefined) {
      expected = await retryTransient(() => this.applier.loadPosition(topic, partition), retry);
      this.positions.set(partition, expected);
    }
    const placed = placeFetched(batch.messages, expected, this.soughtTo.get(partition));
    if (placed.kind === 'stored') {
      resolveOffset(String(placed.last));
      if (placed.seekTo !== undefined) this.seek(partition, placed.seekTo);
      return;
    }
    if (placed.kind === 'seek-back') {
      this.soughtTo.set(partition, placed.offset);
      this.seek(partition, placed.offset);
      return;
    }
    const classified =
      early !== undefined && early.from === expected
        ? early.classified
        : this.classify(partition, placed.fresh);
    if (classified.refused) return this.refuse(partition, classified.refused);
    const { accepted, dead } = classified;
    await heartbeat().catch(() => undefined);
    const fetched: FetchedBatch = {
      topic,
      partition,
      expectedOffset: expected,
      nextOffset: placed.nextOffset,
      accepted,
      dead,
      first: placed.first,
      last: placed.last,
      size: placed.fresh.length,
      highWatermark: Number(batch.highWatermark),
    };
    const done = retryTransient(() => this.grouping.submit(fetched), retry).then(
      (applied) => this.applied(fetched, applied, heartbeat),
      (e: unknown) => this.failed(fetched, e, retry),
    );
    // never rejects: anything unexpected (a seek refused while kafkajs restarts, a listener's error) is a failure
    const settled = done.catch((e: unknown) => this.retryLater(fetched, e));
    this.inFlight.set(partition, { done: settled, nextOffset: placed.nextOffset });
    // kafkajs fetches the partition's next batch while this one's transaction runs; Postgres stays the
    // source of truth for positions (a batch that fails is fetched again from the stored position)
    resolveOffset(String(placed.last));
  }

  /** A batch committed: progress, metrics, and Kafka's copy of the position. */
  private applied(b: FetchedBatch, { outcome, seconds }: Applied, heartbeat: () => Promise<void>): void {
    const { topic, partition, nextOffset } = b;
    const dead = [...b.dead, ...outcome.rejected];
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
    this.lastProgressAt = Date.now();
    this.opts.onBatch?.({
      topic,
      partition,
      nextOffset,
      size: b.size,
      seconds,
      outcome,
      dead,
      accepted: b.accepted,
      highWatermark: b.highWatermark,
    });
    void heartbeat().catch(() => undefined);
    this.kafkaCommits.add(partition, nextOffset);
  }

  /**
   * A batch whose transaction failed (after the retries of transient failures): an offset conflict re-seeks to
   * the stored position; any other failure pauses the partition, seeks it back to the batch's stored position
   * and resumes it after a backoff, so the batch is applied again (even when nothing new is produced) and the
   * consumer itself never stops.
   */
  private async failed(b: FetchedBatch, e: unknown, retry: RetryOptions): Promise<void> {
    const { topic, partition } = b;
    this.positions.delete(partition);
    if (e instanceof OffsetConflictError) {
      this.log.warn({ msg: e.message, topic, partition, offset: b.expectedOffset });
      try {
        const stored = await retryTransient(() => this.applier.loadPosition(topic, partition), retry);
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
  private retryLater(b: FetchedBatch, cause: unknown): void {
    const { topic, partition, expectedOffset: offset } = b;
    this.positions.delete(partition);
    if (this.stopping) return;
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
      this.consumer?.pause([{ topic, partitions: [partition] }]);
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
        this.consumer?.resume([{ topic, partitions: [partition] }]);
      } catch {
        // not running: the next start seeks to the stored positions
      }
    });
  }

  /** A batch refused for what it shows of the topic's setup: nothing applied, the partition paused. */
  private refuse(partition: number, { offset, reason }: { offset: number; reason: string }): void {
    const topic = this.opts.topic;
    this.positions.delete(partition);
    this.log.error({ msg: `${topic}[${partition}]@${offset}: ${reason}`, topic, partition, offset });
    try {
      this.consumer?.pause([{ topic, partitions: [partition] }]);
    } catch {
      // not running: nothing more is fetched anyway
    }
    this.opts.onRefused?.({ topic, partition, offset, reason });
  }

  /** Kafka's copy of a position (KafkaCommits calls it one at a time per partition); never rejects. */
  private async commitToKafka(partition: number, offset: number): Promise<void> {
    const topic = this.opts.topic;
    try {
      await this.consumer?.commitOffsets([{ topic, partition, offset: String(offset) }]);
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
