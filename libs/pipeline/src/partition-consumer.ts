import { Logger } from '@nestjs/common';
import type { Consumer, EachBatchPayload, Kafka } from 'kafkajs';
import { classifyFailure, retryTransient } from '@flaglens/persistence';
import { BatchApplier, OffsetConflictError, type ApplyOutcome, type BatchToApply } from './batch-applier';
import type { SourcedEvent } from '@flaglens/projections';
import { RELEASE_HEADER, releaseFromHeader, type EventFormat } from '@flaglens/contract';
import { classifyMessages, type DeadLetter } from './classify-messages';

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
}

/**
 * The Kafka side of a projector (the live one, or a rebuild): kafkajs eachBatch with auto-commit off.
 * Postgres holds the positions; Kafka's committed offsets follow them so standard lag tools see progress.
 */
export class PartitionConsumer {
  private readonly log: Logger;
  private consumer?: Consumer;
  /** partition -> next offset this consumer believes is stored in Postgres */
  private readonly positions = new Map<number, number>();
  /** partition -> offset we last sought to because a batch started past the stored position */
  private readonly soughtTo = new Map<number, number>();
  /**
   * partition -> the batch whose transaction is in flight (its promise never rejects; a failure is kept in
   * `failures`). While it runs, kafkajs already hands over the partition's next batch, which is classified
   * meanwhile and applied once this one is done: JavaScript and Postgres work overlap within a partition.
   */
  private readonly inFlight = new Map<number, { done: Promise<void>; nextOffset: number }>();
  /**
   * partition -> its failed batches in a row, while it waits to apply again: a batch whose transaction failed
   * (systemic: a missing table, a privilege; or anything unforeseen) is never thrown into kafkajs (which
   * gives up for good on a RangeError or TypeError) but retried from its stored position after a backoff.
   */
  private readonly backoff = new Map<number, { attempt: number; waiting: boolean }>();
  private readonly timers = new Set<NodeJS.Timeout>();
  /**
   * Kafka's copy of each partition's position, committed off the batches' path: one commit in flight per
   * partition, and the latest position of the batches that commit meanwhile after it.
   */
  private readonly kafkaCommits = new Map<number, { running: Promise<void>; next?: number }>();
  /**
   * Batches waiting for a transaction: at most `concurrency` transactions run at once, and a free one takes
   * every waiting batch (of different partitions, up to GROUP_MAX_EVENTS events) into ONE transaction, so
   * under steady load the partitions share one fixed cost instead of queueing behind each other's.
   */
  private readonly ready: QueuedBatch[] = [];
  private running = 0;
  private pumpScheduled = false;
  private stopping = false;
  private joined = false;
  private lastProgressAt = Date.now();

  constructor(
    private readonly kafka: Kafka,
    private readonly applier: BatchApplier,
    private readonly opts: PartitionConsumerOptions,
  ) {
    this.log = new Logger(opts.name ?? 'PartitionConsumer');
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
      for (const b of this.backoff.values()) b.waiting = false;
      void this.seekToStoredPositions(topic, mine);
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
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
    // kafkajs finishes the batch it is handing over before it disconnects; then the transactions in flight end
    await this.consumer?.disconnect().catch((e) => this.log.warn(`disconnect: ${(e as Error).message}`));
    await Promise.all([...this.inFlight.values()].map((f) => f.done));
    await Promise.all([...this.kafkaCommits.values()].map((c) => c.running));
  }

  private async seekToStoredPositions(topic: string, partitions: number[]): Promise<void> {
    for (const partition of partitions) {
      try {
        const stored = await this.applier.loadPosition(topic, partition);
        this.consumer?.seek({ topic, partition, offset: String(stored) });
      } catch (e) {
        this.log.warn({
          msg: `could not seek ${topic}[${partition}] to its stored position: ${(e as Error).message}`,
          topic,
          partition,
        });
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
              topic,
              partition,
              batch.messages.filter((m) => Number(m.offset) >= previous.nextOffset),
            ),
          };
    if (previous !== undefined) await previous.done;
    // the partition waits out a failed batch: it was sought back to its stored position and is paused
    if (this.backoff.get(partition)?.waiting) return;

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

    const { accepted, dead } =
      early !== undefined && early.from === expected
        ? early.classified
        : this.classify(topic, partition, fresh);
    const nextOffset = lastInBatch + 1;
    await heartbeat().catch(() => undefined);
    const done = this.dispatch({
      batch: {
        topic,
        partition,
        expectedOffset: expected,
        nextOffset,
        accepted,
        dead,
        first,
        lastInBatch,
        size: fresh.length,
      },
      highWatermark: Number(batch.highWatermark),
      retryOpts,
      heartbeat,
    });
    this.inFlight.set(partition, { done, nextOffset });
    // kafkajs fetches the partition's next batch while this one's transaction runs; Postgres stays the
    // source of truth for positions (a batch that fails is fetched again from the stored position)
    resolveOffset(String(lastInBatch));
  }

  private classify(topic: string, partition: number, messages: EachBatchPayload['batch']['messages']) {
    return this.applier.measure('classify', () =>
      classifyMessages(
        topic,
        partition,
        messages.map((m) => ({
          offset: Number(m.offset),
          key: m.key,
          value: m.value,
          release: releaseFromHeader(m.headers?.[RELEASE_HEADER]),
        })),
        {
          allowUnknownTypes: this.opts.allowUnknownTypes,
          maxBytes: this.opts.maxEventBytes,
          format: this.opts.eventFormat,
        },
        this.opts.redriven && ((offset) => this.opts.redriven!(partition, offset)),
      ),
    );
  }

  /**
   * One batch's transaction and what follows it (metrics, progress, Kafka's copy of the offset). Never
   * rejects: an offset conflict re-seeks to the stored position; any other failure pauses the partition,
   * seeks it back to the batch's stored position and resumes it after a backoff, so the batch is applied
   * again (even when nothing new is produced) and the consumer itself never stops.
   */
  private async applyBatch(
    q: QueuedBatch,
    applied?: { outcome: ApplyOutcome; seconds: number },
  ): Promise<void> {
    try {
      await this.applyAndRecord(q.batch, q.highWatermark, q.retryOpts, q.heartbeat, applied);
    } catch (e) {
      // anything unexpected (a seek refused while kafkajs restarts, a listener's error)
      this.retryLater(q.batch.topic, q.batch.partition, q.batch.expectedOffset, e);
    }
  }

  /** Queues a batch for a transaction; resolves (never rejects) once it is applied and recorded. */
  private dispatch(q: Omit<QueuedBatch, 'done'>): Promise<void> {
    return new Promise((resolve) => {
      this.ready.push({ ...q, done: resolve });
      if (this.pumpScheduled) return;
      // the batches kafkajs hands over from one fetch arrive within a turn of the event loop: gather them
      this.pumpScheduled = true;
      setImmediate(() => {
        this.pumpScheduled = false;
        this.pump();
      });
    });
  }

  private pump(): void {
    while (this.running < Math.max(1, this.opts.concurrency) && this.ready.length > 0) {
      let events = this.ready[0].batch.size;
      let n = 1;
      while (n < this.ready.length && events + this.ready[n].batch.size <= GROUP_MAX_EVENTS) {
        events += this.ready[n].batch.size;
        n++;
      }
      const group = this.ready.splice(0, n);
      this.running++;
      void this.runGroup(group).finally(() => {
        this.running--;
        this.pump();
      });
    }
  }

  /**
   * Batches of several partitions in one transaction (BatchApplier.applyGroup); when it fails for any reason
   * (nothing is written), each batch on its own, with the retries, isolation and conflict handling of `apply`.
   */
  private async runGroup(group: QueuedBatch[]): Promise<void> {
    let applied: { outcome: ApplyOutcome; seconds: number }[] | undefined;
    if (group.length > 1) {
      const t0 = process.hrtime.bigint();
      try {
        const outcomes = await this.applier.applyGroup(group.map((q) => q.batch));
        const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
        applied = outcomes.map((outcome) => ({ outcome, seconds }));
      } catch (e) {
        this.log.debug(
          `a group of ${group.length} batches failed (${(e as Error).message}); applying them one by one`,
        );
      }
    }
    for (const [i, q] of group.entries()) {
      await this.applyBatch(q, applied?.[i]);
      q.done();
    }
  }

  /** Pauses a partition whose batch failed, seeks it back to `offset`, and resumes it after a backoff. */
  private retryLater(topic: string, partition: number, offset: number, cause: unknown): void {
    this.positions.delete(partition);
    if (this.stopping) return;
    const state = this.backoff.get(partition) ?? { attempt: 0, waiting: false };
    state.attempt++;
    state.waiting = true;
    this.backoff.set(partition, state);
    const delayMs = Math.min(RETRY_MAX_DELAY_MS, RETRY_FIRST_DELAY_MS * 2 ** Math.min(state.attempt - 1, 16));
    this.log.warn({
      msg: `${topic}[${partition}] will apply again from offset ${offset} in ${delayMs} ms (failure ${state.attempt} in a row): ${(cause as Error)?.message ?? cause}`,
      topic,
      partition,
      offset,
      attempt: state.attempt,
      delayMs,
    });
    try {
      this.consumer?.pause([{ topic, partitions: [partition] }]);
      this.consumer?.seek({ topic, partition, offset: String(offset) });
    } catch (e) {
      // kafkajs is restarting or rebalancing: the (re)join seeks every partition to its stored position
      this.log.warn({
        msg: `could not pause ${topic}[${partition}]: ${(e as Error).message}`,
        topic,
        partition,
      });
    }
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      state.waiting = false;
      try {
        this.consumer?.resume([{ topic, partitions: [partition] }]);
      } catch {
        // not running: the next start seeks to the stored positions
      }
    }, delayMs);
    this.timers.add(timer);
  }

  private async applyAndRecord(
    b: DispatchedBatch,
    highWatermark: number,
    retryOpts: Parameters<typeof retryTransient>[1],
    heartbeat: () => Promise<void>,
    applied?: { outcome: ApplyOutcome; seconds: number },
  ): Promise<void> {
    const { topic, partition, nextOffset, accepted, dead } = b;
    const t0 = process.hrtime.bigint();
    let outcome: ApplyOutcome;
    try {
      outcome = applied?.outcome ?? (await retryTransient(() => this.applier.apply(b), retryOpts));
      for (const d of [...dead, ...outcome.rejected]) {
        this.log.warn({
          msg: `dead-lettered ${topic}[${partition}]@${d.offset}: ${d.code}: ${d.reason}`,
          topic,
          partition,
          offset: d.offset,
          reasonCode: d.code,
        });
      }
    } catch (e) {
      this.positions.delete(partition);
      if (e instanceof OffsetConflictError) {
        this.log.warn({ msg: e.message, topic, partition, offset: b.expectedOffset });
        try {
          const stored = await retryTransient(() => this.applier.loadPosition(topic, partition), retryOpts);
          this.positions.set(partition, stored);
          this.consumer?.seek({ topic, partition, offset: String(stored) });
        } catch (reload) {
          this.retryLater(topic, partition, b.expectedOffset, reload);
        }
        return;
      }
      this.log.error({
        msg: `batch ${topic}[${partition}]@${b.first}..${b.lastInBatch} failed (${classifyFailure(e)}): ${(e as Error).stack ?? e}`,
        topic,
        partition,
        offset: b.first,
        lastOffset: b.lastInBatch,
        err: (e as Error).message,
      });
      this.retryLater(topic, partition, b.expectedOffset, e);
      return;
    }
    this.backoff.delete(partition);
    this.positions.set(partition, nextOffset);
    this.lastProgressAt = Date.now();
    this.opts.onBatch?.({
      topic,
      partition,
      nextOffset,
      size: b.size,
      seconds: applied?.seconds ?? Number(process.hrtime.bigint() - t0) / 1e9,
      outcome,
      dead: [...dead, ...outcome.rejected],
      accepted,
      highWatermark,
    });
    void heartbeat().catch(() => undefined);
    this.commitToKafka(topic, partition, nextOffset);
  }

  /**
   * Kafka's copy of a partition's position, for external lag tools only (Postgres holds the position this
   * consumer starts from): committed without holding the partition's next batch nor a transaction slot for a
   * broker round trip; the positions of batches that commit meanwhile are coalesced into the latest.
   */
  private commitToKafka(topic: string, partition: number, offset: number): void {
    const pending = this.kafkaCommits.get(partition);
    if (pending) {
      pending.next = offset;
      return;
    }
    const state: { running: Promise<void>; next?: number } = { running: Promise.resolve() };
    this.kafkaCommits.set(partition, state);
    state.running = (async () => {
      for (let o: number | undefined = offset; o !== undefined; o = state.next) {
        state.next = undefined;
        try {
          await this.consumer?.commitOffsets([{ topic, partition, offset: String(o) }]);
        } catch (e) {
          this.log.warn({
            msg: `kafka offset commit for ${topic}[${partition}] failed: ${(e as Error).message}`,
            topic,
            partition,
            offset: o,
          });
        }
      }
      this.kafkaCommits.delete(partition);
    })();
  }
}

/** The backoff of a partition whose batch failed: doubling from the first delay up to the largest. */
const RETRY_FIRST_DELAY_MS = 500;
const RETRY_MAX_DELAY_MS = 30_000;

/** A batch handed to its transaction: what the applier needs, and where it lies in the partition. */
type DispatchedBatch = BatchToApply & { first: number; lastInBatch: number; size: number };

/** A batch waiting for a transaction, with what its partition's handler passes along. */
interface QueuedBatch {
  batch: DispatchedBatch;
  highWatermark: number;
  retryOpts: Parameters<typeof retryTransient>[1];
  heartbeat: () => Promise<void>;
  /** called once the batch is applied and recorded (or left to a retry) */
  done: () => void;
}

/**
 * At most this many events in one transaction of several partitions' batches: a fetch of a catching-up
 * consumer (batches of thousands) still goes one batch per transaction, as many at once as `concurrency`.
 */
const GROUP_MAX_EVENTS = 5000;
