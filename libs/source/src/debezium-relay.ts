import type { Consumer, Kafka, Message, Producer } from 'kafkajs';
import { mapDebeziumChange } from '@flaglens/contract';
import { SourceError } from './errors';
import type { SourceLog } from './retry';

export interface DebeziumRelayOptions {
  kafka: Kafka;
  /** Debezium's topic of Unleash's `events` table (`<topic.prefix>.<schema>.events`). */
  from: string;
  /** Ours (KAFKA_TOPIC): keyed by the contract's key. */
  to: string;
  /** The relay's consumer group (its position in `from`). */
  groupId: string;
  /** Relay up to the end of `from` as it was at the start, then stop. */
  once: boolean;
  log: SourceLog;
  signal?: AbortSignal;
}

export interface RelaySummary {
  /** Messages produced to `to` (events, and changes the projector will dead-letter). */
  relayed: number;
  /** Tombstones skipped. */
  tombstones: number;
  /** Updates that left the event as it was (Unleash's announcer), skipped. */
  unchanged: number;
}

/**
 * Repartitions Debezium's change events of Unleash's `events` table into our topic, keyed by the contract's
 * key (docs/debezium.md, "Per-flag order").
 *
 * Debezium keys a change by the row's primary key (`{"id": …}`), so on a topic of several partitions one flag's
 * events are spread over all of them and no consumer can tell their order. The Postgres connector has one task
 * and writes in commit order; on a topic of ONE partition that order is total. The relay reads that one
 * partition in order and produces each change, unchanged, with the key `featureName`, else `project`, else
 * `instance` (one producer, one request in flight: Kafka keeps that order per key), so every flag's events
 * reach the projector (EVENT_FORMAT=debezium) in commit order while the projector still scales by our
 * partitions. A topic of several partitions is refused: its order is lost before the relay could see it.
 *
 * At least once: the relay's offset is committed after Kafka acknowledged what it covers; a crash re-sends
 * those changes, and the projector stores an event id once. Tombstones and updates that leave the event as it was (Unleash's announcer) are not carried; other updates and deletes
 * are (keyed by their row), so the projector dead-letters them with the reason.
 */
export class DebeziumRelay {
  constructor(private readonly o: DebeziumRelayOptions) {}

  async run(): Promise<RelaySummary> {
    const { kafka, from, to, log, signal } = this.o;
    const admin = kafka.admin();
    let end: number;
    let next = 0;
    try {
      await admin.connect();
      const topics = await admin.listTopics();
      for (const t of [from, to])
        if (!topics.includes(t)) throw new SourceError('no-topic', `topic ${t} does not exist`);
      const offsets = await admin.fetchTopicOffsets(from);
      if (offsets.length !== 1)
        throw new SourceError(
          'partitions',
          `${from} has ${offsets.length} partitions: Debezium keys a change by the event's id, so a flag's ` +
            `events are spread over them and their order is lost; create it with one partition ` +
            `(topic.creation.default.partitions=1, docs/debezium.md)`,
        );
      end = Number(offsets[0].high);
      const committed = await admin.fetchOffsets({ groupId: this.o.groupId, topics: [from] });
      next = Math.max(0, Number(committed[0]?.partitions[0]?.offset ?? -1));
    } finally {
      await admin.disconnect().catch(() => undefined);
    }

    const producer: Producer = kafka.producer({ allowAutoTopicCreation: false, maxInFlightRequests: 1 });
    const consumer: Consumer = kafka.consumer({
      groupId: this.o.groupId,
      allowAutoTopicCreation: false,
      maxBytesPerPartition: 4 * 1024 * 1024,
      // large batches while Debezium writes (its own batches are small), 200 ms at most when it is quiet
      minBytes: 1024 * 1024,
      maxWaitTimeInMs: 200,
    });
    let committedAt = 0;
    const summary: RelaySummary = { relayed: 0, tombstones: 0, unchanged: 0 };
    let failure: unknown = null;
    await producer.connect();
    try {
      await consumer.connect();
      await consumer.subscribe({ topic: from, fromBeginning: true });
      consumer.on(consumer.events.CRASH, (e) => {
        if (!e.payload.restart) failure = e.payload.error;
      });
      await consumer.run({
        autoCommit: false,
        eachBatchAutoResolve: false,
        eachBatch: async ({ batch, resolveOffset, heartbeat, isRunning, isStale }) => {
          if (!isRunning() || isStale()) return;
          const out: Message[] = [];
          for (const m of batch.messages) {
            const d = mapDebeziumChange(m.value);
            if (d.kind === 'tombstone') summary.tombstones++;
            else if (d.kind === 'unchanged') summary.unchanged++;
            else out.push({ key: d.key, value: m.value });
          }
          for (let i = 0; i < out.length; i += 5000)
            await producer.send({ topic: to, acks: -1, messages: out.slice(i, i + 5000) });
          summary.relayed += out.length;
          const last = batch.messages[batch.messages.length - 1];
          if (last) {
            resolveOffset(last.offset);
            next = Number(last.offset) + 1;
            // after Kafka acknowledged what it covers; at most once a second while behind (a crash re-sends
            // at most that much, stored once by the projector), at once when caught up
            if (batch.offsetLag() === '0' || Date.now() - committedAt >= 1000) {
              await consumer.commitOffsets([
                { topic: from, partition: batch.partition, offset: String(next) },
              ]);
              committedAt = Date.now();
            }
          }
          await heartbeat();
        },
      });
      // follow until stopped; --once: until the end of `from` as it was at the start
      while (!signal?.aborted && !failure && !(this.o.once && next >= end))
        await new Promise((r) => setTimeout(r, 100));
      if (failure) throw failure;
      // what was produced is committed before leaving (a commit skipped by the once-a-second rule)
      await consumer
        .commitOffsets([{ topic: from, partition: 0, offset: String(next) }])
        .catch(() => undefined);
      log('info', `relayed ${summary.relayed} change(s) from ${from} to ${to}`);
      return summary;
    } finally {
      await consumer.disconnect().catch(() => undefined);
      await producer.disconnect().catch(() => undefined);
    }
  }
}
