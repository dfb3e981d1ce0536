import type { PoolClient } from 'pg';
import type { Kafka } from 'kafkajs';
import { Database } from '@flaglens/persistence';
import { allProjections, type Projection, type SourcedEvent } from '@flaglens/projections';
import { createTestDatabase, type TestDatabase } from '@flaglens/testing/support/test-database';
import { createTestTopic, testGroup, testKafka } from '@flaglens/testing/support/test-kafka';
import { flagEvent, toMessage } from '@flaglens/testing/support/event-factory';
import { waitFor } from '@flaglens/testing/support/wait-for';
import { BatchApplier, type ApplyOutcome, type BatchToApply } from './batch-applier';
import { PartitionConsumer } from './partition-consumer';

const GROUP = testGroup('pc-group'); // of its own on the broker

/**
 * Holds every transaction at its door until `open()`, and throws (projection code failing) for an event
 * whose `data.note` is `poison`: a failure that is the event's own, isolated and dead-lettered.
 */
class GateProjection implements Projection {
  readonly name = 'gate';
  readonly writes = ['gate'];
  readonly scope = 'flags';
  entered = 0;
  open: () => void = () => undefined;
  private gate: Promise<void> = Promise.resolve();
  /** From now on transactions wait at the gate until `open()`. */
  close(): void {
    this.entered = 0;
    this.gate = new Promise<void>((resolve) => (this.open = resolve));
  }
  handles(): boolean {
    return true;
  }
  async apply(_c: PoolClient, events: SourcedEvent[]): Promise<void> {
    this.entered++;
    await this.gate;
    for (const { event } of events) if (event.data?.note === 'poison') throw new RangeError('poisoned event');
  }
}

/** The real applier, noting the groups it is given. */
class NotingApplier extends BatchApplier {
  readonly groups: number[][] = [];
  override applyGroup(batches: BatchToApply[]): Promise<ApplyOutcome[]> {
    this.groups.push(batches.map((b) => b.partition).sort());
    return super.applyGroup(batches);
  }
}

/** PartitionConsumer groups the batches waiting for a transaction (real Kafka and Postgres). */
describe('PartitionConsumer: waiting batches of several partitions (real Kafka and Postgres)', () => {
  let kafka: Kafka;
  let db: TestDatabase;
  let ds: Database;
  let topic: string;
  let dropTopic: () => Promise<void>;

  beforeAll(async () => {
    kafka = testKafka();
    db = await createTestDatabase('pc_group');
    ds = new Database({ url: db.url, max: 4 });
    ({ topic, drop: dropTopic } = await createTestTopic(kafka, 'pc_group', 3));
  });
  afterAll(async () => {
    await ds?.end();
    await dropTopic?.();
    await db?.drop();
  });

  it('applies them in one transaction; when it fails, one by one: the bad event dead-lettered, nothing lost', async () => {
    const gate = new GateProjection();
    // the batches classified: one `classify` stage per batch
    let classified = 0;
    const applier = new NotingApplier(
      ds,
      GROUP,
      { kind: 'active' },
      [...allProjections(), gate],
      undefined,
      (stage) => (classified += stage === 'classify' ? 1 : 0),
    );
    const consumer = new PartitionConsumer(kafka, applier, {
      topic,
      groupId: GROUP,
      concurrency: 1,
      sessionTimeoutMs: 10000,
      allowUnknownTypes: false,
      maxEventBytes: 1024 * 1024,
    });
    const producer = kafka.producer({ idempotent: true, maxInFlightRequests: 1 }); // offsets are counted: each message once
    await producer.connect();
    const send = (partition: number, ids: number[], poison?: number) =>
      producer.send({
        topic,
        acks: -1,
        messages: ids.map((id, i) => {
          const e = flagEvent(id, `p${partition}-flag`, i);
          if (id === poison) e.data = { ...e.data, note: 'poison' };
          return { ...toMessage(e), partition };
        }),
      });
    const positions = async () =>
      (
        await db.query<{ partition: number; next_offset: string }>(
          `SELECT partition, next_offset FROM projector_offsets WHERE group_id = '${GROUP}' ORDER BY partition`,
        )
      ).map((r) => [r.partition, Number(r.next_offset)]);
    try {
      await consumer.start();
      // first one event per partition, through the open gate: the consumer has joined and sought
      for (const p of [0, 1, 2]) await send(p, [100 + p]);
      await waitFor(
        'the first events applied',
        async () => JSON.stringify(await positions()) === '[[0,1],[1,1],[2,1]]',
        { timeoutMs: 30000 },
      );
      const classifiedBefore = classified;
      gate.close();
      // the one transaction: partition 0's batch, held at the gate
      await send(0, [1, 2, 3]);
      await waitFor('the first transaction at the gate', () => Promise.resolve(gate.entered >= 1), {
        timeoutMs: 30000,
        intervalMs: 20,
      });
      // meanwhile partitions 1 and 2 each hand over a batch, which waits for the transaction
      await send(1, [11, 12, 13]);
      await send(2, [21, 22, 23], 22);
      // partition 0's batch and the two others (partition 0's is classified before it reaches the gate)
      await waitFor('both batches classified', () => Promise.resolve(classified >= classifiedBefore + 3), {
        timeoutMs: 30000,
        intervalMs: 20,
      });
      await new Promise((r) => setTimeout(r, 100));
      gate.open();

      await waitFor(
        'every partition at its end',
        async () => JSON.stringify(await positions()) === '[[0,4],[1,4],[2,4]]',
        { timeoutMs: 30000 },
      );
      // the two waiting batches went into one transaction, which the poisoned event failed
      expect(applier.groups).toContainEqual([1, 2]);
      const stored = await db.query<{ id: string }>('SELECT id FROM event_log ORDER BY id');
      expect(stored.map((r) => Number(r.id))).toEqual([1, 2, 3, 11, 12, 13, 21, 23, 100, 101, 102]);
      const dead = await db.query<{ event_id: string; reason_code: string; partition: number }>(
        'SELECT event_id, reason_code, partition FROM dead_letters',
      );
      expect(dead.map((d) => [Number(d.event_id), d.reason_code, d.partition])).toEqual([
        [22, 'projection-error', 2],
      ]);
    } finally {
      gate.open();
      await consumer.stop();
      await producer.disconnect();
    }
  });
});
