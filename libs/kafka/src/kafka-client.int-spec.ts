import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { Kafka, logLevel } from 'kafkajs';
import { startLocalKafka, type LocalKafka } from '@flaglens/testing/support/local-kafka';
import { createKafka } from './kafka-client';

const ROOT = join(__dirname, '..', '..', '..');

/**
 * Our Kafka clients never create a topic by naming it: against a broker of its own that would create any
 * topic a client asks for (auto.create.topics.enable=true, unlike ours), a consumer subscribing to and a
 * producer sending to a missing topic fail, and the topic still does not exist.
 */
describe('kafka clients: no topic auto-creation (a broker of its own that would create them)', () => {
  let broker: LocalKafka;

  beforeAll(async () => {
    broker = await startLocalKafka(join(ROOT, '.run', 'test-kafka-autocreate'), {
      autoCreateTopics: true,
      heap: '-Xms128m -Xmx384m',
    });
  });

  afterAll(async () => {
    await broker?.stop();
  });

  const missing = () => `flaglens.test.missing.${randomBytes(3).toString('hex')}`;
  /** Whether the topic shows up within a few seconds (the broker creates a topic asynchronously). */
  async function exists(topic: string): Promise<boolean> {
    const admin = createKafka({ brokers: broker.brokers, clientId: 'check', log: () => undefined }).admin();
    await admin.connect();
    try {
      for (let i = 0; i < 15; i++) {
        if ((await admin.listTopics()).includes(topic)) return true;
        await new Promise((r) => setTimeout(r, 200));
      }
      return false;
    } finally {
      await admin.disconnect();
    }
  }
  const ours = () =>
    createKafka({ brokers: broker.brokers, clientId: 'ours', retries: 1, log: () => undefined });

  it('control: a kafkajs producer with its defaults makes that broker create the topic', async () => {
    const topic = missing();
    const producer = new Kafka({ brokers: [broker.brokers], logLevel: logLevel.NOTHING }).producer();
    await producer.connect();
    await producer.send({ topic, messages: [{ value: 'x' }] }).catch(() => undefined);
    await producer.disconnect();
    expect(await exists(topic)).toBe(true);
  });

  it('a consumer of ours subscribing to a missing topic fails and creates nothing', async () => {
    const topic = missing();
    const consumer = ours().consumer({ groupId: `g-${topic}`, retry: { retries: 1 } });
    await consumer.connect();
    await expect(consumer.subscribe({ topic, fromBeginning: true })).rejects.toThrow();
    await consumer.disconnect();
    expect(await exists(topic)).toBe(false);
  });

  it('a producer of ours sending to a missing topic fails and creates nothing', async () => {
    const topic = missing();
    const producer = ours().producer();
    await producer.connect();
    await expect(producer.send({ topic, messages: [{ value: 'x' }] })).rejects.toThrow();
    await producer.disconnect();
    expect(await exists(topic)).toBe(false);
  });
});
