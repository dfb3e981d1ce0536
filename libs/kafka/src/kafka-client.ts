import { Kafka, logLevel, LogEntry, type ConsumerConfig, type ProducerConfig } from 'kafkajs';
import { kafkaSecurityFromEnv, type KafkaSecurity } from './kafka-security';
// kafkajs' request queue without the negative timer that Node 24 warns about on stderr
import './kafkajs-request-queue';

// the default (murmur2, Java-compatible) partitioner is the one we want; silence its migration notice
process.env.KAFKAJS_NO_PARTITIONER_WARNING ??= '1';

export interface KafkaClientOptions {
  brokers: string;
  clientId: string;
  /** Where kafkajs log lines go; defaults to stderr as JSON lines at WARN and above. */
  log?: (level: 'error' | 'warn' | 'info' | 'debug', message: string, extra: Record<string, unknown>) => void;
  /** Retries of a failed request or connection (default 10, up to 10 s apart); 0 for a quick probe. */
  retries?: number;
  /**
   * TLS and SASL (kafkaSecurity(config)); by default those of the process environment (KAFKA_SSL*,
   * KAFKA_SASL*), so every client of ours, tools included, connects the same way.
   */
  security?: KafkaSecurity;
}

const LEVELS: Record<number, 'error' | 'warn' | 'info' | 'debug'> = {
  [logLevel.ERROR]: 'error',
  [logLevel.WARN]: 'warn',
  [logLevel.INFO]: 'info',
  [logLevel.DEBUG]: 'debug',
};

/**
 * kafkajs with topic auto-creation off for every consumer and producer (kafkajs defaults it to on): the
 * topic is created on purpose, with its retention (scripts/ensure-topic.ts), never by a client that
 * subscribes or sends to a name that does not exist.
 */
class NoAutoCreateKafka extends Kafka {
  override consumer(config: ConsumerConfig) {
    return super.consumer({ ...config, allowAutoTopicCreation: false });
  }

  override producer(config: ProducerConfig = {}) {
    return super.producer({ ...config, allowAutoTopicCreation: false });
  }
}

/** One kafkajs client configured the same way everywhere (projector, CLI, tests, bench). */
export function createKafka(opts: KafkaClientOptions): Kafka {
  const sink =
    opts.log ??
    ((level, message, extra) =>
      process.stderr.write(JSON.stringify({ level, msg: message, ...extra }) + '\n'));
  const { ssl, sasl } = opts.security ?? kafkaSecurityFromEnv();
  return new NoAutoCreateKafka({
    clientId: opts.clientId,
    brokers: opts.brokers.split(',').map((b) => b.trim()),
    ...(ssl ? { ssl } : {}),
    ...(sasl ? { sasl } : {}),
    connectionTimeout: 5000,
    requestTimeout: 30000,
    retry: { initialRetryTime: 300, retries: opts.retries ?? 10, maxRetryTime: 10000 },
    logLevel: logLevel.WARN,
    logCreator:
      () =>
      ({ level, log }: LogEntry) => {
        // kafkajs attaches the stack of its internal frames to connection errors: the message says it all
        const {
          message,
          timestamp: _t,
          logger: _l,
          stack: _s,
          ...extra
        } = log as LogEntry['log'] & { logger?: string; stack?: string };
        sink(LEVELS[level] ?? 'info', message, extra);
      },
  });
}
