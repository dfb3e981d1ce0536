import { Inject, Injectable, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import type { Kafka } from 'kafkajs';
import { AppConfig } from '@flaglens/config';
import { ProjectorMetrics } from '@flaglens/observability';
import { BatchApplier, PartitionConsumer } from '@flaglens/pipeline';
import { ConsumerProgressMonitor } from './consumer-progress.monitor';
import { KAFKA } from './tokens';

/** The live projector: the configured group, writing the active projection version. */
@Injectable()
export class LiveProjector implements OnApplicationBootstrap, OnApplicationShutdown {
  readonly consumer: PartitionConsumer;

  constructor(
    @Inject(KAFKA) kafka: Kafka,
    config: AppConfig,
    applier: BatchApplier,
    metrics: ProjectorMetrics,
    monitor: ConsumerProgressMonitor,
  ) {
    this.consumer = new PartitionConsumer(kafka, applier, {
      name: 'LiveProjector',
      topic: config.KAFKA_TOPIC,
      groupId: config.KAFKA_GROUP_ID,
      concurrency: config.PROJECTOR_CONCURRENCY,
      sessionTimeoutMs: config.KAFKA_SESSION_TIMEOUT_MS,
      allowUnknownTypes: config.ACCEPT_UNKNOWN_EVENT_TYPES,
      maxEventBytes: config.MAX_EVENT_BYTES,
      onBatch: (b) => {
        metrics.recordBatch({
          size: b.size,
          seconds: b.seconds,
          accepted: b.accepted,
          stored: b.outcome.storedEvents,
          dead: b.dead,
        });
        let lastEventAt: string | null = null;
        for (const s of b.outcome.storedEvents)
          if (lastEventAt === null || s.event.createdAt > lastEventAt) lastEventAt = s.event.createdAt;
        monitor.onBatch(b.partition, b.nextOffset, b.highWatermark, lastEventAt);
      },
      onAssigned: (partitions) => monitor.progress.assigned(partitions, Date.now()),
      onRetry: () => metrics.transactionRetries.inc(),
    });
  }

  async onApplicationBootstrap(): Promise<void> {
    await this.consumer.start();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.consumer.stop();
  }
}
