import type { Kafka } from 'kafkajs';

export interface PartitionWatermarks {
  partition: number;
  low: number;
  high: number;
}

/** Low and high watermarks of every partition of a topic (the high one is the next offset to be written). */
export async function topicWatermarks(kafka: Kafka, topic: string): Promise<PartitionWatermarks[]> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    const offsets = await admin.fetchTopicOffsets(topic);
    return offsets
      .map((o) => ({ partition: o.partition, low: Number(o.low), high: Number(o.high) }))
      .sort((a, b) => a.partition - b.partition);
  } finally {
    await admin.disconnect();
  }
}

/** Whether a consumer of `topic` can start now, and if not, why (for a clear wait, not a crash). */
export type TopicAvailability =
  | { ok: true }
  | { ok: false; problem: 'broker-unreachable' | 'topic-missing' | 'authentication-failed'; detail: string };

/**
 * One quick look (give it a client with few retries and a silent log): does the broker answer, and does it
 * have the topic? Lists topics (metadata without auto-creation); never throws.
 */
export async function topicAvailability(kafka: Kafka, topic: string): Promise<TopicAvailability> {
  const admin = kafka.admin();
  try {
    await admin.connect();
    const topics = await admin.listTopics();
    return topics.includes(topic)
      ? { ok: true }
      : { ok: false, problem: 'topic-missing', detail: `topic ${topic} does not exist` };
  } catch (e) {
    const error = e as Error;
    // a wrong SASL password or mechanism: the broker answered and said no (KafkaJSSASLAuthenticationError)
    if (error.name === 'KafkaJSSASLAuthenticationError')
      return { ok: false, problem: 'authentication-failed', detail: error.message };
    return { ok: false, problem: 'broker-unreachable', detail: error.message };
  } finally {
    await admin.disconnect().catch(() => undefined);
  }
}
