import type { INestApplication } from '@nestjs/common';
import fc from 'fast-check';
import type { Kafka } from 'kafkajs';
import { loadConfig } from '@flaglens/config';
import { eventLike } from '@flaglens/testing/event-arbitraries';
import { extremeEvent } from '@flaglens/testing/extreme-events';
import { eventKey } from '@flaglens/contract';
import { createProjectorApp } from './main';
import { createTestDatabase, TestDatabase } from '@flaglens/testing/support/test-database';
import { BROKERS, createTestTopic, produce, testKafka } from '@flaglens/testing/support/test-kafka';
import { flagEvent, toMessage } from '@flaglens/testing/support/event-factory';
import { waitFor } from '@flaglens/testing/support/wait-for';

/**
 * Contract fuzzing through the real consumer path: random and mutated events and raw bytes, produced to a
 * real topic (one partition, so offsets are one sequence) and consumed by the real projector. Every message
 * must end up in exactly one place — stored, dead-lettered with a reason, or a duplicate of a stored id —
 * and the projector must keep going.
 */
describe('consumer fuzzing (real Kafka and Postgres)', () => {
  let kafka: Kafka;
  let db: TestDatabase;
  let topic: string;
  let dropTopic: () => Promise<void>;
  let app: INestApplication;

  beforeAll(async () => {
    kafka = testKafka();
    db = await createTestDatabase('fuzz');
    ({ topic, drop: dropTopic } = await createTestTopic(kafka, 'fuzz', 1));
  });

  afterAll(async () => {
    await app?.close();
    await dropTopic?.();
    await db?.drop();
  });

  it('never crashes; every message is stored once, dead-lettered with a reason, or a duplicate id', async () => {
    const mutate = (json: string, cut: number, junk: string) =>
      json.slice(0, Math.floor(json.length * cut)) + junk;
    const message = fc.oneof(
      { arbitrary: eventLike.map((e) => Buffer.from(JSON.stringify(e))), weight: 8 },
      // well-formed events too, ids colliding now and then
      {
        arbitrary: fc
          .integer({ min: 1, max: 3000 })
          .map((i) => Buffer.from(JSON.stringify(flagEvent(2_000_000 + i, `f-${i % 40}`, i)))),
        weight: 4,
      },
      {
        arbitrary: fc
          .tuple(eventLike, fc.double({ min: 0, max: 1, noNaN: true }), fc.string({ maxLength: 5 }))
          .map(([e, cut, junk]) => Buffer.from(mutate(JSON.stringify(e), cut, junk))),
        weight: 2,
      },
      { arbitrary: fc.uint8Array({ maxLength: 300 }).map((b) => Buffer.from(b)), weight: 1 },
      {
        arbitrary: fc.constantFrom('null', '[]', '{}', '"x"', '42', '').map((s) => Buffer.from(s)),
        weight: 1,
      },
    );
    const values = fc.sample(message, { numRuns: 1200, seed: 424242 });
    await produce(
      kafka,
      topic,
      values.map((value) => ({ key: 'fuzz', value })),
      200,
    );

    app = await createProjectorApp(
      loadConfig({
        DATABASE_URL: db.url,
        KAFKA_BROKERS: BROKERS,
        KAFKA_TOPIC: topic,
        KAFKA_GROUP_ID: `fuzz-${topic}`,
      }),
    );
    app.useLogger(['error']);
    await app.init();
    const position = async () =>
      Number(
        (await db.query<{ n: string }>('SELECT coalesce(max(next_offset), 0) AS n FROM projector_offsets'))[0]
          .n,
      );
    await waitFor('all fuzz messages consumed', async () => (await position()) === values.length, {
      timeoutMs: 120000,
    });

    const stored = await db.query<{ id: string; source_offset: string }>(
      'SELECT id, source_offset FROM event_log',
    );
    const dead = await db.query<{
      offset: string;
      reason_code: string;
      reason: string;
      message_value: Buffer | null;
    }>('SELECT "offset", reason_code, reason, message_value FROM dead_letters');
    const storedAt = new Map(stored.map((r) => [Number(r.source_offset), Number(r.id)]));
    const deadAt = new Map(dead.map((r) => [Number(r.offset), r]));
    const storedIds = new Set(stored.map((r) => Number(r.id)));
    expect(storedIds.size).toBe(stored.length);
    for (let offset = 0; offset < values.length; offset++) {
      const inLog = storedAt.has(offset);
      const isDead = deadAt.has(offset);
      expect(inLog && isDead).toBe(false);
      if (isDead) {
        const d = deadAt.get(offset)!;
        expect(d.reason.length).toBeGreaterThan(0);
        // the value as sent, also for one the database refused (a re-drive sends the same bytes)
        expect(Buffer.from(d.message_value ?? Buffer.alloc(0)).equals(values[offset])).toBe(true);
      } else if (!inLog) {
        // neither stored nor dead: only a repeat of an id stored from another offset
        const id = (JSON.parse(values[offset].toString('utf8')) as { id: number }).id;
        expect(storedIds.has(id)).toBe(true);
      }
    }
    expect(stored.length).toBeGreaterThan(100);
    expect(dead.length).toBeGreaterThan(100);

    // and it is still projecting
    await produce(kafka, topic, [toMessage(flagEvent(9_000_001, 'after-the-storm', 1))]);
    await waitFor(
      'a valid event after the fuzz',
      async () => (await db.query(`SELECT 1 FROM event_log WHERE id = 9000001`)).length === 1,
    );
  });

  it('extreme but valid events on every partition: each partition keeps moving, the projector never crashes', async () => {
    const { topic: t6, drop } = await createTestTopic(kafka, 'extreme', 6);
    const db6 = await createTestDatabase('extreme');
    let app6: INestApplication | undefined;
    try {
      const events = fc.sample(extremeEvent, { numRuns: 400, seed: 20261123 });
      const messages = events.map((e) => ({
        key: eventKey({ featureName: e.featureName as string | null, project: e.project as string | null }),
        value: Buffer.from(JSON.stringify(e)),
      }));
      await produce(kafka, t6, messages, 20);
      app6 = await createProjectorApp(
        loadConfig({
          DATABASE_URL: db6.url,
          KAFKA_BROKERS: BROKERS,
          KAFKA_TOPIC: t6,
          KAFKA_GROUP_ID: `extreme-${t6}`,
          LOG_LEVEL: 'fatal',
        }),
      );
      app6.useLogger(false);
      await app6.init();
      const admin = kafka.admin();
      await admin.connect();
      const high = new Map((await admin.fetchTopicOffsets(t6)).map((p) => [p.partition, Number(p.high)]));
      await admin.disconnect();
      const caughtUp = async () => {
        const rows = await db6.query<{ partition: number; next_offset: string }>(
          'SELECT partition, next_offset FROM projector_offsets WHERE topic = $1',
          [t6],
        );
        const at = new Map(rows.map((r) => [r.partition, Number(r.next_offset)]));
        return [...high].every(([p, h]) => h === 0 || at.get(p) === h);
      };
      await waitFor('every partition at its high-water mark', caughtUp, { timeoutMs: 240_000 });
      const [{ stored }] = await db6.query<{ stored: string }>('SELECT count(*) AS stored FROM event_log');
      const dead = await db6.query<{ reason: string }>('SELECT reason FROM dead_letters');
      expect(dead.every((d) => d.reason.length > 0)).toBe(true);
      const distinctIds = new Set(events.map((e) => e.id)).size;
      // every message stored, dead-lettered, or a repeat of an id stored from another offset
      expect(Number(stored) + dead.length).toBeGreaterThanOrEqual(distinctIds - dead.length);
      expect(Number(stored)).toBeGreaterThan(100);
      // and still projecting, on every partition
      await produce(
        kafka,
        t6,
        [0, 1, 2, 3, 4, 5].map((p) => ({
          partition: p,
          ...toMessage(flagEvent(9_100_000 + p, `calm-${p}`, 1)),
        })),
      );
      await waitFor(
        'a calm event on each partition',
        async () =>
          (await db6.query(`SELECT 1 FROM event_log WHERE id BETWEEN 9100000 AND 9100005`)).length === 6,
        { timeoutMs: 60_000 },
      );
    } finally {
      await app6?.close();
      await drop();
      await db6.drop();
    }
  });
});
