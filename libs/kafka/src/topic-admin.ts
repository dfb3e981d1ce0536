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
