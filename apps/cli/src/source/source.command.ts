import { Command, CommandRunner, Option, SubCommand } from 'nest-commander';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import type { INestApplication } from '@nestjs/common';
import { Logger } from 'nestjs-pino';
import { AppConfig } from '@flaglens/config';
import { createKafka, kafkaSecurity } from '@flaglens/kafka';
import { MetricsRegistry } from '@flaglens/observability';
import {
  ApiConnector,
  DbConnector,
  DebeziumRelay,
  SourceError,
  SourceMetrics,
  oneLine,
  type SourceLog,
} from '@flaglens/source';
import { ConnectorHandle, ConnectorHttpModule } from './connector-http.module';
import { terminalText } from '../terminal-text';

interface UnleashFlags {
  databaseUrl?: string;
  apiUrl?: string;
  token?: string;
  once?: boolean;
  sourceName?: string;
  pollMs?: number;
  batchSize?: number;
  bucketGraceSeconds?: number;
  sdkOnly?: boolean;
}

const LEVELS = { error: 0, warn: 1, info: 2 } as const;

/**
 * `source unleash --database-url <url> [--once]` (or UNLEASH_DATABASE_URL): streams a self-hosted Unleash's
 * events and SDK usage into the topic. `--api-url <url> --token <admin token>` (or UNLEASH_API_URL,
 * UNLEASH_API_TOKEN) reads its event API instead. Without `--once` it follows and serves /health and
 * /metrics on CONNECTOR_PORT. docs/source-connector.md.
 */
@SubCommand({
  name: 'unleash',
  description:
    "Stream a real Unleash's events (and SDK usage) into the topic: backfill from the first event, then follow",
})
export class SourceUnleashCommand extends CommandRunner {
  constructor(private readonly config: AppConfig) {
    super();
  }

  async run(_: string[], flags: UnleashFlags): Promise<void> {
    const c = this.config;
    const databaseUrl = flags.databaseUrl ?? c.UNLEASH_DATABASE_URL;
    // UNLEASH_API_URL also tells the api where to check Unleash's credentials: beside a database URL it is
    // not a mode of the connector's
    const apiUrl = flags.apiUrl ?? (databaseUrl ? undefined : c.UNLEASH_API_URL);
    const token = flags.token ?? c.UNLEASH_API_TOKEN;
    if (!databaseUrl && !apiUrl)
      return fail('give --database-url <Unleash postgres url> (or --api-url <url> --token <admin token>)');
    if (databaseUrl && apiUrl) return fail('give either --database-url or --api-url, not both');
    if (databaseUrl && !/^postgres(ql)?:\/\/\S+$/.test(databaseUrl))
      return fail('--database-url must be a postgres:// URL');
    if (apiUrl && !/^https?:\/\/\S+$/.test(apiUrl)) return fail('--api-url must be an http(s):// URL');
    if (apiUrl && !token) return fail('--api-url needs --token <admin API token> (or UNLEASH_API_TOKEN)');

    const threshold =
      LEVELS[c.LOG_LEVEL as keyof typeof LEVELS] ??
      (c.LOG_LEVEL === 'silent' || c.LOG_LEVEL === 'fatal' ? -1 : 2);
    const log: SourceLog = (level, message) => {
      // messages quote what Unleash sent (names, errors): escaped for the terminal
      if (LEVELS[level] <= threshold)
        process.stderr.write(`flaglens source [${level}] ${terminalText(message)}\n`);
    };
    const abort = new AbortController();
    const stop = () => abort.abort();
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);

    const kafka = createKafka({
      brokers: c.KAFKA_BROKERS,
      security: kafkaSecurity(c),
      clientId: `${c.KAFKA_CLIENT_ID}-connector`,
      log: (level, message) => level === 'error' && log('warn', `kafka: ${message}`),
    });
    await this.checkTopic(kafka);

    let http: INestApplication | undefined;
    let metrics: SourceMetrics | undefined;
    let connector: DbConnector | ApiConnector | undefined;
    const handle: ConnectorHandle = {
      get ready() {
        return connector?.ready ?? false;
      },
      get currentStatus() {
        return connector!.currentStatus;
      },
    };
    if (flags.sdkOnly && !databaseUrl) return fail('--sdk-only reads the database: give --database-url');
    // SDK usage beside Debezium keeps a position of its own
    const source = flags.sourceName ?? (flags.sdkOnly ? 'unleash-sdk' : 'unleash');
    try {
      if (!flags.once) {
        // Fastify, as the api (no Express in the dependencies: NestFactory's default would not start)
        http = await NestFactory.create(
          ConnectorHttpModule.forRoot({ logLevel: c.LOG_LEVEL, metricsToken: c.METRICS_TOKEN, handle }),
          // Fastify, as the api and the projector (Nest's default, Express, is not a dependency)
          new FastifyAdapter(),
          { bufferLogs: true },
        );
        http.useLogger(http.get(Logger));
        metrics = new SourceMetrics(http.get(MetricsRegistry).registry);
      }
      connector = databaseUrl
        ? new DbConnector({
            source,
            unleashUrl: databaseUrl,
            flaglensUrl: c.DATABASE_URL,
            kafka,
            topic: c.KAFKA_TOPIC,
            once: !!flags.once,
            sdkOnly: !!flags.sdkOnly,
            batchSize: flags.batchSize,
            pollMs: flags.pollMs,
            bucketGraceMs:
              flags.bucketGraceSeconds === undefined ? undefined : flags.bucketGraceSeconds * 1000,
            log,
            signal: abort.signal,
            metrics,
          })
        : new ApiConnector({
            source,
            apiUrl: apiUrl!,
            token: token!,
            flaglensUrl: c.DATABASE_URL,
            kafka,
            topic: c.KAFKA_TOPIC,
            once: !!flags.once,
            pollMs: flags.pollMs,
            log,
            signal: abort.signal,
            metrics,
          });
      if (http) {
        await http.listen(c.CONNECTOR_PORT, c.CONNECTOR_HOST);
        log('info', `health and metrics on ${c.CONNECTOR_HOST}:${c.CONNECTOR_PORT}`);
      }
      log('info', `reading ${databaseUrl ? 'the database' : 'the API'} of Unleash into ${c.KAFKA_TOPIC}`);
      const summary = await connector.run();
      if (flags.once && abort.signal.aborted) return fail('stopped before everything was copied');
      if (flags.once)
        process.stdout.write(
          JSON.stringify({
            produced: summary.produced,
            sdkProduced: summary.sdkProduced,
            hwm: summary.position.hwm,
          }) + '\n',
        );
    } catch (e) {
      if (e instanceof SourceError) return fail(e.message);
      throw new Error(oneLine(e));
    } finally {
      process.removeListener('SIGINT', stop);
      process.removeListener('SIGTERM', stop);
      await http?.close();
    }
  }

  private async checkTopic(kafka: ReturnType<typeof createKafka>): Promise<void> {
    const admin = kafka.admin();
    try {
      await admin.connect();
      const topics = await admin.listTopics();
      if (!topics.includes(this.config.KAFKA_TOPIC))
        fail(
          `topic ${this.config.KAFKA_TOPIC} does not exist on ${this.config.KAFKA_BROKERS} (npm run infra:up creates it)`,
        );
    } finally {
      await admin.disconnect().catch(() => undefined);
    }
  }

  @Option({
    flags: '--database-url <url>',
    description: "Unleash's Postgres (default: UNLEASH_DATABASE_URL)",
  })
  parseDatabaseUrl(v: string): string {
    return v;
  }

  @Option({
    flags: '--api-url <url>',
    description: "Unleash's base URL, without database access (UNLEASH_API_URL)",
  })
  parseApiUrl(v: string): string {
    return v;
  }

  @Option({ flags: '--token <token>', description: 'an admin API token, with --api-url (UNLEASH_API_TOKEN)' })
  parseToken(v: string): string {
    return v;
  }

  @Option({ flags: '--once', description: "copy up to Unleash's newest event and SDK usage, then exit" })
  parseOnce(): boolean {
    return true;
  }

  @Option({
    flags: '--sdk-only',
    description: 'SDK usage only, not the events table (Debezium carries it: docs/debezium.md)',
  })
  parseSdkOnly(): boolean {
    return true;
  }

  @Option({ flags: '--source-name <name>', description: 'name of the stored position (default unleash)' })
  parseSourceName(v: string): string {
    if (!/^[A-Za-z0-9._-]{1,100}$/.test(v)) throw new Error(`--source-name: letters, digits, . _ - only`);
    return v;
  }

  @Option({
    flags: '--poll-ms <ms>',
    description: 'wait between reads when caught up (default 100; API 1000)',
  })
  parsePollMs(v: string): number {
    return positiveInt('--poll-ms', v);
  }

  @Option({ flags: '--batch-size <n>', description: 'rows per read of the events table (default 5000)' })
  parseBatchSize(v: string): number {
    return positiveInt('--batch-size', v);
  }

  @Option({
    flags: '--bucket-grace-seconds <s>',
    description: 'an hourly SDK bucket is produced this long after its hour ends (default 120)',
  })
  parseBucketGrace(v: string): number {
    return positiveInt('--bucket-grace-seconds', v, 0);
  }
}

function positiveInt(name: string, v: string, min = 1): number {
  if (!/^\d+$/.test(v) || Number(v) < min) throw new Error(`${name}: not an integer ≥ ${min}: ${v}`);
  return Number(v);
}

/** Exit 2 with one line: what the operator must fix (no stack trace, no credentials). */
function fail(message: string): never {
  process.stderr.write(`flaglens source: ${terminalText(message)}\n`);
  process.exit(2);
}

interface DebeziumFlags {
  from?: string;
  once?: boolean;
  groupId?: string;
}

/**
 * `source debezium --from <Debezium's topic of events> [--once]`: repartitions Debezium's change events of
 * Unleash's `events` table into KAFKA_TOPIC, keyed by the contract's key, for a projector that runs with
 * EVENT_FORMAT=debezium (docs/debezium.md).
 */
@SubCommand({
  name: 'debezium',
  description:
    "Repartition Debezium's change events of Unleash's events table into the topic, keyed by flag (EVENT_FORMAT=debezium)",
})
export class SourceDebeziumCommand extends CommandRunner {
  constructor(private readonly config: AppConfig) {
    super();
  }

  async run(_: string[], flags: DebeziumFlags): Promise<void> {
    const c = this.config;
    if (!flags.from) return fail("give --from <Debezium's topic of Unleash's events table>");
    if (flags.from === c.KAFKA_TOPIC) return fail("--from must be Debezium's topic, not KAFKA_TOPIC");
    const log: SourceLog = (level, message) => {
      if (level !== 'info' || c.LOG_LEVEL !== 'silent')
        process.stderr.write(`flaglens source [${level}] ${terminalText(message)}\n`);
    };
    const abort = new AbortController();
    const stop = () => abort.abort();
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
    const kafka = createKafka({
      brokers: c.KAFKA_BROKERS,
      clientId: `${c.KAFKA_CLIENT_ID}-debezium-relay`,
      log: (level, message) => level === 'error' && log('warn', `kafka: ${message}`),
    });
    try {
      const summary = await new DebeziumRelay({
        kafka,
        from: flags.from,
        to: c.KAFKA_TOPIC,
        groupId: flags.groupId ?? 'flaglens-debezium-relay',
        once: !!flags.once,
        log,
        signal: abort.signal,
      }).run();
      if (flags.once && abort.signal.aborted) return fail('stopped before everything was relayed');
      if (flags.once) process.stdout.write(JSON.stringify(summary) + '\n');
    } catch (e) {
      if (e instanceof SourceError) return fail(e.message);
      throw new Error(oneLine(e));
    } finally {
      process.removeListener('SIGINT', stop);
      process.removeListener('SIGTERM', stop);
    }
  }

  @Option({ flags: '--from <topic>', description: "Debezium's topic of Unleash's events table" })
  parseFrom(v: string): string {
    return v;
  }

  @Option({ flags: '--once', description: 'relay up to the end of the topic as it is now, then exit' })
  parseOnce(): boolean {
    return true;
  }

  @Option({
    flags: '--group-id <id>',
    description: "the relay's consumer group (default flaglens-debezium-relay)",
  })
  parseGroupId(v: string): string {
    return v;
  }
}

@Command({
  name: 'source',
  description: 'Connect a source of events (a real Unleash, or Debezium) to the topic',
  subCommands: [SourceUnleashCommand, SourceDebeziumCommand],
})
export class SourceCommand extends CommandRunner {
  async run(): Promise<void> {
    this.command.outputHelp();
  }
}
