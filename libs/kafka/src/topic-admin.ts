import type { Admin, ITopicConfig, Kafka } from 'kafkajs';

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

/**
 * Creates a topic and waits until every partition of it has a leader. kafkajs's own `waitForLeaders` retries
 * only on LEADER_NOT_AVAILABLE; a KRaft broker (Kafka 4) under load may answer the metadata request right after
 * the creation with UNKNOWN_TOPIC_OR_PARTITION ("This server does not host this topic-partition") until its
 * metadata catches up, and kafkajs then throws. This asks again (every 100 ms) for as long as `timeoutMs`.
 * Returns false when the topic existed already (another caller), as `createTopics` does.
 */
export async function createTopicWithLeaders(
  admin: Admin,
  topic: ITopicConfig & { numPartitions: number },
  timeoutMs = 30_000,
): Promise<boolean> {
  const created = await admin.createTopics({ waitForLeaders: false, topics: [topic] });
  const deadline = Date.now() + timeoutMs;
  let last = 'no answer yet';
  for (;;) {
    try {
      const md = await admin.fetchTopicMetadata({ topics: [topic.topic] });
      const partitions = md.topics[0]?.partitions ?? [];
      if (partitions.length >= topic.numPartitions && partitions.every((p) => p.leader >= 0)) return created;
      last = `${partitions.filter((p) => p.leader >= 0).length} of ${topic.numPartitions} partitions with a leader`;
    } catch (e) {
      last = (e as Error).message;
    }
    if (Date.now() > deadline)
      throw new Error(
        `topic ${topic.topic} has no leader for every partition after ${timeoutMs} ms: ${last}`,
      );
    await new Promise((r) => setTimeout(r, 100));
  }
}
