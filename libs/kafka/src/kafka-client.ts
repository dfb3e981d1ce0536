import { Kafka, logLevel, LogEntry } from 'kafkajs';

// the default (murmur2, Java-compatible) partitioner is the one we want; silence its migration notice
process.env.KAFKAJS_NO_PARTITIONER_WARNING ??= '1';

export interface KafkaClientOptions {
  brokers: string;
  clientId: string;
  /** Where kafkajs log lines go; defaults to stderr as JSON lines at WARN and above. */
  log?: (level: 'error' | 'warn' | 'info' | 'debug', message: string, extra: Record<string, unknown>) => void;
}

const LEVELS: Record<number, 'error' | 'warn' | 'info' | 'debug'> = {
  [logLevel.ERROR]: 'error',
  [logLevel.WARN]: 'warn',
  [logLevel.INFO]: 'info',
  [logLevel.DEBUG]: 'debug',
};

/** One kafkajs client configured the same way everywhere (projector, CLI, tests, bench). */
export function createKafka(opts: KafkaClientOptions): Kafka {
  const sink =
    opts.log ??
    ((level, message, extra) =>
      process.stderr.write(JSON.stringify({ level, msg: message, ...extra }) + '\n'));
  return new Kafka({
    clientId: opts.clientId,
    brokers: opts.brokers.split(',').map((b) => b.trim()),
    connectionTimeout: 5000,
    requestTimeout: 30000,
    retry: { initialRetryTime: 300, retries: 10, maxRetryTime: 10000 },
    logLevel: logLevel.WARN,
    logCreator:
      () =>
      ({ level, log }: LogEntry) => {
        const { message, timestamp: _t, logger: _l, ...extra } = log as LogEntry['log'] & { logger?: string };
        sink(LEVELS[level] ?? 'info', message, extra);
      },
  });
}
