import {
  Inject,
  Injectable,
  Logger,
  OnApplicationBootstrap,
  BeforeApplicationShutdown,
} from '@nestjs/common';
import type { Kafka } from 'kafkajs';
import { AppConfig } from '@flaglens/config';
import { createKafka, topicAvailability, kafkaSecurity } from '@flaglens/kafka';
import { ProjectorMetrics } from '@flaglens/observability';
import { BatchApplier, PartitionConsumer } from '@flaglens/pipeline';
import { ConsumerProgressMonitor } from './consumer-progress.monitor';
import { KAFKA } from './tokens';

/** Waits between start attempts while Kafka is not ready: doubling from the first to the last. */
export const START_BACKOFF_MS = { first: 500, max: 10_000 };
/** A consumer stopped without kafkajs scheduling a restart for this long is dead (liveness). */
const STOPPED_GRACE_MS = 10_000;

/**
 * The live projector: the configured group, writing the active projection version.
 *
 * It starts in the background: while the broker does not answer or the topic does not exist it says so
 * once, waits with backoff and tries again (never exits, never creates the topic); the health endpoints
 * answer meanwhile (not ready, with the reason). Once running, a consumer that kafkajs gave up on (a crash
 * with no restart) makes the projector not live.
 */
@Injectable()
export class LiveProjector implements OnApplicationBootstrap, BeforeApplicationShutdown {
  readonly consumer: PartitionConsumer;
  private readonly log = new Logger('LiveProjector');
  private readonly probe: Kafka;
  /** Why the consumer is not started yet (null once it is). */
  private waiting: string | null = 'starting: looking for the broker and the topic';
  private dead: string | null = null;
  /** Why the topic's setup is refused (a message showed it cannot be projected correctly), once it is. */
  private refusal: string | null = null;
  private onRefusal?: (reason: string) => void;
  private stoppedAt: number | null = null;
  private closing = false;
  private starting?: Promise<void>;
  private wake?: () => void;

  constructor(
    @Inject(KAFKA) kafka: Kafka,
    private readonly config: AppConfig,
    applier: BatchApplier,
    metrics: ProjectorMetrics,
    private readonly monitor: ConsumerProgressMonitor,
  ) {
    // a separate client for the availability probe: one quick attempt, its errors are ours to report
    this.probe = createKafka({
      brokers: config.KAFKA_BROKERS,
      clientId: `${config.KAFKA_CLIENT_ID}-projector-probe`,
      security: kafkaSecurity(config),
      retries: 0,
      log: () => undefined,
    });
    this.consumer = new PartitionConsumer(kafka, applier, {
      name: 'LiveProjector',
      topic: config.KAFKA_TOPIC,
      groupId: config.KAFKA_GROUP_ID,
      concurrency: config.PROJECTOR_CONCURRENCY,
      sessionTimeoutMs: config.KAFKA_SESSION_TIMEOUT_MS,
      allowUnknownTypes: config.ACCEPT_UNKNOWN_EVENT_TYPES,
      maxEventBytes: config.MAX_EVENT_BYTES,
      eventFormat: config.EVENT_FORMAT,
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
      onAssigned: (partitions) => {
        this.stoppedAt = null;
        monitor.progress.assigned(partitions, Date.now());
      },
      onRetry: () => metrics.transactionRetries.inc(),
      onCrash: ({ error, restart }) => {
        if (restart) {
          this.stoppedAt = null; // kafkajs restarts it
        } else if (!this.closing) {
          this.dead = error?.message ?? String(error);
          this.log.error(
            `the Kafka consumer stopped for good (kafkajs will not restart it: ${this.dead}); /health/live fails so the projector is restarted`,
          );
        }
      },
      onStop: () => {
        if (!this.closing) this.stoppedAt = Date.now();
      },
      onRefused: ({ reason }) => this.refuse(reason),
    });
  }

  /**
   * `handler` is called once when a message shows the topic is misconfigured (nothing of it was projected):
   * the process stops with the reason, which names the fix (main.ts).
   */
  whenRefused(handler: (reason: string) => void): void {
    this.onRefusal = handler;
    if (this.refusal !== null) handler(this.refusal);
  }

  private refuse(reason: string): void {
    if (this.refusal !== null) return;
    this.refusal = reason;
    this.log.error(`the projector stops: ${reason}`);
    this.onRefusal?.(reason);
  }

  /** Null while the projector can work; otherwise why it cannot and will not recover by itself. */
  get failure(): string | null {
    if (this.refusal !== null) return `the topic is misconfigured: ${this.refusal}`;
    if (this.dead !== null) return 'the Kafka consumer stopped for good after a crash (see the logs)';
    if (this.stoppedAt !== null && Date.now() - this.stoppedAt > STOPPED_GRACE_MS)
      return 'the Kafka consumer stopped unexpectedly and was not restarted (see the logs)';
    return null;
  }

  /** Null once the consumer is started; otherwise what it waits for. */
  get waitingFor(): string | null {
    return this.waiting;
  }

  onApplicationBootstrap(): void {
    this.starting = this.startWhenKafkaIsReady();
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.closing = true;
    this.wake?.();
    await this.starting;
    await this.consumer.stop();
  }

  /** Never rejects: tries until the consumer runs or the app closes. */
  private async startWhenKafkaIsReady(): Promise<void> {
    const { KAFKA_BROKERS: brokers, KAFKA_TOPIC: topic } = this.config;
    const since = Date.now();
    let said: string | null = null;
    for (let attempt = 1; !this.closing; attempt++) {
      const availability = await topicAvailability(this.probe, topic);
      let problem: string;
      let kind: string;
      if (availability.ok) {
        try {
          await this.consumer.start();
          if (this.closing) return; // closed while starting: beforeApplicationShutdown stops the consumer
          this.waiting = null;
          this.log.log(
            `found topic ${topic} at ${brokers}${attempt > 1 ? ` after ${((Date.now() - since) / 1000).toFixed(1)} s of waiting` : ''}; consuming`,
          );
          this.monitor.start();
          return;
        } catch (e) {
          kind = 'consumer-start';
          problem = `the consumer could not start on ${brokers} (${(e as Error).message})`;
        }
      } else if (availability.problem === 'authentication-failed') {
        kind = availability.problem;
        problem = `Kafka at ${brokers} refused the credentials (KAFKA_SASL_*): ${availability.detail}`;
      } else if (availability.problem === 'topic-missing') {
        kind = availability.problem;
        problem = `topic ${topic} does not exist at ${brokers}`;
      } else {
        kind = availability.problem;
        problem = `Kafka broker not reachable at ${brokers} (${availability.detail})`;
      }
      this.waiting = `waiting: ${problem}`;
      if (this.closing) return;
      const delay = Math.min(START_BACKOFF_MS.max, START_BACKOFF_MS.first * 2 ** Math.min(attempt - 1, 20));
      if (kind !== said) {
        said = kind;
        this.log.warn(
          `${problem}; waiting for it, retrying with backoff (up to ${START_BACKOFF_MS.max / 1000} s apart)` +
            (kind === 'topic-missing'
              ? ' — the projector never creates the topic (npm run infra:up does)'
              : ''),
        );
      }
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, delay);
        this.wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
  }
}
