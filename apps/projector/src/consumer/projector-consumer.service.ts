import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import type { Consumer, EachBatchPayload, Kafka } from 'kafkajs';
import { AppConfig } from '@flaglens/config';
import { retryTransient } from '@flaglens/persistence';
import { BatchApplier, OffsetConflictError } from '../batch/batch-applier';
import { classifyMessages } from '../batch/classify-messages';
import { KAFKA } from '../tokens';

/**
 * The Kafka side of the projector: a plain provider with lifecycle hooks (not Nest's microservice transport).
 * Postgres holds the positions; Kafka's committed offsets follow them so standard lag tools see progress.
 */
@Injectable()
export class ProjectorConsumer implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly log = new Logger(ProjectorConsumer.name);
  private consumer?: Consumer;
  /** partition -> next offset this consumer believes is stored in Postgres */
  private readonly positions = new Map<number, number>();
  /** partition -> offset we last sought to because a batch started past the stored position */
  private readonly soughtTo = new Map<number, number>();
  private stopping = false;
  private joined = false;
  private lastProgressAt = Date.now();

  constructor(
    @Inject(KAFKA) private readonly kafka: Kafka,
    private readonly config: AppConfig,
    private readonly applier: BatchApplier,
  ) {}

  get isJoined(): boolean {
    return this.joined;
  }

  get lastProgress(): number {
    return this.lastProgressAt;
  }

  async onApplicationBootstrap(): Promise<void> {
    const topic = this.config.KAFKA_TOPIC;
    const consumer = this.kafka.consumer({
      groupId: this.config.KAFKA_GROUP_ID,
      sessionTimeout: this.config.KAFKA_SESSION_TIMEOUT_MS,
      heartbeatInterval: Math.min(3000, Math.floor(this.config.KAFKA_SESSION_TIMEOUT_MS / 3)),
      rebalanceTimeout: 60000,
      // ~4k events of ~500 B per partition batch; the broker still returns one larger message whole (KIP-74).
      // Bounded so the projector stays small (bench: peak RSS).
      maxBytesPerPartition: 2 * 1024 * 1024,
      maxBytes: 8 * 1024 * 1024,
      maxWaitTimeInMs: 100,
      retry: { retries: 10 },
    });
    this.consumer = consumer;
    consumer.on(consumer.events.GROUP_JOIN, (e) => {
      this.joined = true;
      const mine = e.payload.memberAssignment[topic] ?? [];
      this.log.log(
        `joined group ${e.payload.groupId} (generation ${e.payload.groupId}); partitions ${JSON.stringify(mine)}`,
      );
      this.positions.clear();
      this.soughtTo.clear();
      void this.seekToStoredPositions(topic, mine);
    });
    consumer.on(consumer.events.CRASH, (e) => {
      this.joined = false;
      this.log.error(`consumer crashed: ${e.payload.error?.message}; restart=${e.payload.restart}`);
    });
    consumer.on(consumer.events.STOP, () => (this.joined = false));
    await consumer.connect();
    await consumer.subscribe({ topic, fromBeginning: true });
    await consumer.run({
      autoCommit: false,
      eachBatchAutoResolve: false,
      partitionsConsumedConcurrently: this.config.PROJECTOR_CONCURRENCY,
      eachBatch: (payload) => this.handleBatch(payload),
    });
    this.log.log(`consuming ${topic} as group ${this.config.KAFKA_GROUP_ID}`);
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopping = true;
    // kafkajs finishes the batch in flight before it disconnects
    await this.consumer?.disconnect().catch((e) => this.log.warn(`disconnect: ${(e as Error).message}`));
  }

  private async seekToStoredPositions(topic: string, partitions: number[]): Promise<void> {
    for (const partition of partitions) {
      try {
        const stored = await this.applier.loadPosition(topic, partition);
        this.consumer?.seek({ topic, partition, offset: String(stored) });
      } catch (e) {
        this.log.warn(
          `could not seek ${topic}[${partition}] to its stored position: ${(e as Error).message}`,
        );
      }
    }
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
    const retryOpts = {
      shouldStop: () => this.stopping || !isRunning(),
      onRetry: async (e: unknown, attempt: number, delay: number) => {
        this.log.warn(
          `postgres unavailable for ${topic}[${partition}] (attempt ${attempt}, next in ${delay} ms): ${(e as Error).message}`,
        );
        await heartbeat().catch(() => undefined);
      },
    };

    let expected = this.positions.get(partition);
    if (expected === undefined) {
      expected = await retryTransient(() => this.applier.loadPosition(topic, partition), retryOpts);
      this.positions.set(partition, expected);
    }
    const lastInBatch = Number(batch.messages[batch.messages.length - 1].offset);
    const fresh = batch.messages.filter((m) => Number(m.offset) >= expected!);
    if (fresh.length === 0) {
      // already applied (e.g. Kafka's committed offset lagged Postgres after a crash): skip
      resolveOffset(String(lastInBatch));
      if (expected > lastInBatch + 1) this.consumer?.seek({ topic, partition, offset: String(expected) });
      return;
    }
    const first = Number(fresh[0].offset);
    if (first > expected && this.soughtTo.get(partition) !== expected) {
      // the fetch began past the stored position (Kafka's offset ahead of Postgres): go back once;
      // if the broker again starts later, those offsets no longer exist and the gap is accepted
      this.soughtTo.set(partition, expected);
      this.consumer?.seek({ topic, partition, offset: String(expected) });
      return;
    }

    const { accepted, dead } = classifyMessages(
      topic,
      partition,
      fresh.map((m) => ({ offset: Number(m.offset), key: m.key, value: m.value })),
      { allowUnknownTypes: this.config.ACCEPT_UNKNOWN_EVENT_TYPES, maxBytes: this.config.MAX_EVENT_BYTES },
    );
    const nextOffset = lastInBatch + 1;
    await heartbeat().catch(() => undefined);
    try {
      const outcome = await retryTransient(
        () => this.applier.apply({ topic, partition, expectedOffset: expected!, nextOffset, accepted, dead }),
        retryOpts,
      );
      for (const d of [...dead, ...outcome.rejected]) {
        this.log.warn(`dead-lettered ${topic}[${partition}]@${d.offset}: ${d.code}: ${d.reason}`);
      }
    } catch (e) {
      if (e instanceof OffsetConflictError) {
        this.log.warn(e.message);
        this.positions.delete(partition);
        const stored = await retryTransient(() => this.applier.loadPosition(topic, partition), retryOpts);
        this.positions.set(partition, stored);
        this.consumer?.seek({ topic, partition, offset: String(stored) });
        return;
      }
      this.log.error(
        `batch ${topic}[${partition}]@${first}..${lastInBatch} failed: ${(e as Error).stack ?? e}`,
      );
      throw e;
    }
    this.positions.set(partition, nextOffset);
    this.lastProgressAt = Date.now();
    resolveOffset(String(lastInBatch));
    await heartbeat().catch(() => undefined);
    try {
      await this.consumer?.commitOffsets([{ topic, partition, offset: String(nextOffset) }]);
    } catch (e) {
      // Postgres is the source of truth; Kafka's copy only feeds external lag tools
      this.log.warn(`kafka offset commit for ${topic}[${partition}] failed: ${(e as Error).message}`);
    }
  }
}
