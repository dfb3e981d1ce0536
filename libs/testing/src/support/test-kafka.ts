import { randomBytes } from 'node:crypto';
import type { Kafka, Message } from 'kafkajs';
import { createKafka, createTopicWithLeaders } from '@flaglens/kafka';

export const BROKERS = process.env.KAFKA_BROKERS ?? '127.0.0.1:9092';

export function testKafka(): Kafka {
  return createKafka({ brokers: BROKERS, clientId: 'flaglens-test', log: () => undefined });
}

/**
 * A consumer group name of its own (label plus random suffix): a group shared with a test running at the same
 * time on the same broker (on another topic) would be rebalanced with it and could be handed its partitions.
 */
export function testGroup(label: string): string {
  return `${label}-${randomBytes(3).toString('hex')}`;
}

/** A fresh topic (unlimited retention, large messages allowed), deleted by `drop`. */
export async function createTestTopic(
  kafka: Kafka,
  label: string,
  partitions = 6,
  topic = `flaglens.test.${label}.${randomBytes(3).toString('hex')}`,
): Promise<{ topic: string; drop(): Promise<void> }> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    await createTopicWithLeaders(admin, {
      topic,
      numPartitions: partitions,
      replicationFactor: 1,
      configEntries: [
        { name: 'retention.ms', value: '-1' },
        { name: 'max.message.bytes', value: '4194304' },
      ],
    });
  } finally {
    await admin.disconnect();
  }
  return {
    topic,
    drop: async () => {
      const a = kafka.admin();
      await a.connect();
      await a.deleteTopics({ topics: [topic] }).catch(() => undefined);
      await a.disconnect();
    },
  };
}

/**
 * Produces messages in chunks, waiting for all replicas, each message once: the producer is idempotent, so a batch
 * sent again after a late answer from a loaded broker is not written twice (tests count offsets and dead letters).
 */
export async function produce(kafka: Kafka, topic: string, messages: Message[], chunk = 500): Promise<void> {
  const producer = kafka.producer({
    allowAutoTopicCreation: false,
    idempotent: true,
    maxInFlightRequests: 1,
  });
  await producer.connect();
  try {
    for (let i = 0; i < messages.length; i += chunk) {
      await producer.send({ topic, messages: messages.slice(i, i + chunk), acks: -1 });
    }
  } finally {
    await producer.disconnect();
  }
}
