import { Logger } from '@nestjs/common';
import type { Consumer, EachBatchPayload, Kafka } from 'kafkajs';
import { retryTransient, type RetryOptions } from '@flaglens/persistence';
import type { SourcedEvent } from '@flaglens/projections';
import { RELEASE_HEADER, releaseFromHeader, type EventFormat } from '@flaglens/contract';
import type { ApplyOutcome, BatchApplier } from './batch-applier';
import { BatchGrouping, type Applied } from './batch-grouping';
import { classifyMessages, type Classified, type DeadLetter } from './classify-messages';
import { placeFetched } from './fetched-batch';
import { KafkaCommits } from './kafka-commits';
import { PartitionControl, type FetchedBatch } from './partition-control';

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

/**
 * The Kafka side of a projector (the live one, or a rebuild): kafkajs eachBatch with auto-commit off. Postgres
 * holds the positions (Kafka's committed offsets follow them, for lag tools). It owns the consumer's lifecycle
 * and hands each batch down to its transaction (BatchGrouping, then BatchApplier); its partitions' positions,
 * seeks, pauses and backoff are PartitionControl's. Nothing below calls back into it.
 */
export class PartitionConsumer {
  private readonly log: Logger;
  private consumer?: Consumer;
  private readonly grouping: BatchGrouping;
  private readonly partitions: PartitionControl;
  private readonly kafkaCommits: KafkaCommits;
  /** Decodes and validates a batch's messages (the `classify` stage). */
  private readonly classify: (
    partition: number,
    messages: EachBatchPayload['batch']['messages'],
  ) => Classified;
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
    this.kafkaCommits = new KafkaCommits((partition, offset) =>
      this.partitions.commitToKafka(partition, offset),
    );
    this.partitions = new PartitionControl(
      opts.topic,
      this.log,
      () => this.consumer,
      (partition) => applier.loadPosition(opts.topic, partition),
      () => this.stopping,
      opts.onRefused,
    );
    const { redriven } = opts;
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
      this.partitions.rejoined();
      void this.partitions.seekToStoredPositions(mine);
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
    this.partitions.backoff.stop();
    // kafkajs finishes the batch it is handing over before it disconnects; then the transactions in flight end
    await this.consumer?.disconnect().catch((e) => this.log.warn(`disconnect: ${(e as Error).message}`));
    await Promise.all([...this.inFlight.values()].map((f) => f.done));
    await this.kafkaCommits.settled();
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
    if (this.partitions.backoff.isWaiting(partition)) return;

    let expected = this.partitions.positions.get(partition);
    if (expected === undefined) {
      expected = await retryTransient(() => this.applier.loadPosition(topic, partition), retry);
      this.partitions.positions.set(partition, expected);
    }
    const placed = placeFetched(batch.messages, expected, this.partitions.soughtTo.get(partition));
    if (placed.kind === 'stored') {
      resolveOffset(String(placed.last));
      if (placed.seekTo !== undefined) this.partitions.seek(partition, placed.seekTo);
      return;
    }
    if (placed.kind === 'seek-back') {
      this.partitions.soughtTo.set(partition, placed.offset);
      this.partitions.seek(partition, placed.offset);
      return;
    }
    const classified =
      early !== undefined && early.from === expected
        ? early.classified
        : this.classify(partition, placed.fresh);
    if (classified.refused) return this.partitions.refuse(partition, classified.refused);
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
      (e: unknown) => this.partitions.failed(fetched, e, retry),
    );
    // never rejects: anything unexpected (a seek refused while kafkajs restarts, a listener's error) is a failure
    const settled = done.catch((e: unknown) => this.partitions.retryLater(fetched, e));
    this.inFlight.set(partition, { done: settled, nextOffset: placed.nextOffset });
    // kafkajs fetches the partition's next batch while this one's transaction runs; Postgres stays the
    // source of truth for positions (a batch that fails is fetched again from the stored position)
    resolveOffset(String(placed.last));
  }

  /** A batch committed: progress, metrics, and Kafka's copy of the position. */
  private applied(b: FetchedBatch, { outcome, seconds }: Applied, heartbeat: () => Promise<void>): void {
    const { topic, partition, nextOffset } = b;
    const dead = [...b.dead, ...outcome.rejected];
    this.partitions.succeeded(partition, nextOffset, dead);
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
}
