import 'reflect-metadata';
import { createPrivateKey, X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { plainToInstance, Transform } from 'class-transformer';
import {
  IsBoolean,
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  Matches,
  Max,
  Min,
  validateSync,
} from 'class-validator';

const POSTGRES_URL = /^postgres(ql)?:\/\/[^\s]+$/;
const BROKER_LIST = /^[A-Za-z0-9.-]+:\d{1,5}(,[A-Za-z0-9.-]+:\d{1,5})*$/;
const LISTEN_HOST = /^([A-Za-z0-9.-]{1,253}|[0-9A-Fa-f:.]{2,45})$/;
const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

const toInt = ({ value }: { value: unknown }) =>
  value === undefined || value === '' ? undefined : /^-?\d+$/.test(String(value)) ? Number(value) : value;
const toBool = ({ value }: { value: unknown }) =>
  value === undefined || value === ''
    ? undefined
    : value === 'true' || value === '1'
      ? true
      : value === 'false' || value === '0'
        ? false
        : value;

/**
 * Every environment variable flaglens reads, with its default and its limits.
 * Validated once at start-up: a wrong value stops the process with a message naming the variable.
 * The table of docs/configuration.md mirrors this class (scripts/configuration-doc.spec.ts).
 */
export class AppConfig {
  @Matches(POSTGRES_URL, { message: 'must be a postgres:// URL' })
  DATABASE_URL = 'postgres://postgres@127.0.0.1:5432/flaglens';

  /** Read replica for the api; falls back to DATABASE_URL. */
  @IsOptional()
  @Matches(POSTGRES_URL, { message: 'must be a postgres:// URL' })
  DATABASE_READ_URL?: string;

  @Matches(BROKER_LIST, { message: 'must be a comma-separated list of host:port' })
  KAFKA_BROKERS = '127.0.0.1:9092';

  @IsString()
  @Matches(/^[A-Za-z0-9._-]{1,249}$/, { message: 'must be a valid Kafka topic name' })
  KAFKA_TOPIC = 'flaglens.events';

  @IsString()
  @Matches(/^[A-Za-z0-9._-]{1,249}$/, { message: 'must be a valid consumer group id' })
  KAFKA_GROUP_ID = 'flaglens-projector';

  @IsString()
  KAFKA_CLIENT_ID = 'flaglens';

  /** TLS to the brokers, verified against the system CAs (or KAFKA_SSL_CA_FILE). On when a KAFKA_SSL_*_FILE is set. */
  @Transform(toBool)
  @IsOptional()
  @IsBoolean()
  KAFKA_SSL?: boolean;

  /** PEM file of the CA(s) that signed the brokers' certificates (instead of the system CAs). */
  @IsOptional()
  @IsString()
  KAFKA_SSL_CA_FILE?: string;

  /** PEM client certificate for mutual TLS (with KAFKA_SSL_KEY_FILE). */
  @IsOptional()
  @IsString()
  KAFKA_SSL_CERT_FILE?: string;

  /** PEM private key of the client certificate (with KAFKA_SSL_CERT_FILE). */
  @IsOptional()
  @IsString()
  KAFKA_SSL_KEY_FILE?: string;

  /** Passphrase of an encrypted KAFKA_SSL_KEY_FILE (never logged). */
  @IsOptional()
  @IsString()
  KAFKA_SSL_KEY_PASSWORD?: string;

  /** SASL authentication: plain, scram-sha-256 or scram-sha-512 (with KAFKA_SASL_USERNAME and _PASSWORD). */
  @IsOptional()
  @IsIn(['plain', 'scram-sha-256', 'scram-sha-512'])
  KAFKA_SASL_MECHANISM?: 'plain' | 'scram-sha-256' | 'scram-sha-512';

  @IsOptional()
  @IsString()
  KAFKA_SASL_USERNAME?: string;

  /** Never logged. */
  @IsOptional()
  @IsString()
  KAFKA_SASL_PASSWORD?: string;

  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(65535)
  PORT = 4242;

  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(65535)
  PROJECTOR_PORT = 4243;

  /**
   * The address the projector's /health and /metrics listen on: loopback by default, `::` (every interface)
   * in the image (Dockerfile), so Prometheus and Kubernetes probes reach it from outside the container.
   */
  @Matches(LISTEN_HOST, {
    message: 'must be an IP address or a host name (:: or 0.0.0.0 for every interface)',
  })
  PROJECTOR_HOST = '127.0.0.1';

  /** The same for the source connector's /health and /metrics (CONNECTOR_PORT). */
  @Matches(LISTEN_HOST, {
    message: 'must be an IP address or a host name (:: or 0.0.0.0 for every interface)',
  })
  CONNECTOR_HOST = '127.0.0.1';

  /** The source connector's health and metrics port (CONNECTOR_HOST), while it follows an Unleash. */
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(65535)
  CONNECTOR_PORT = 4244;

  /** Unleash's Postgres, read by `source unleash` (a read-only role is enough; docs/source-connector.md). */
  @IsOptional()
  @Matches(POSTGRES_URL, { message: 'must be a postgres:// URL' })
  UNLEASH_DATABASE_URL?: string;

  /**
   * Unleash's base URL: for `source unleash` without database access (with UNLEASH_API_TOKEN), and for the api,
   * which then accepts the credentials that Unleash issued by asking it (docs/deviations.md, "Authentication").
   */
  @IsOptional()
  @Matches(/^https?:\/\/\S+$/, { message: 'must be an http(s):// URL' })
  UNLEASH_API_URL?: string;

  /**
   * The Unleash the event search's summaries link to (its `server.unleashUrl`); unset: UNLEASH_API_URL, else
   * Unleash's default `http://localhost:4242` (`unleashUrl()`).
   */
  @IsOptional()
  @Matches(/^https?:\/\/\S+$/, { message: 'must be an http(s):// URL' })
  UNLEASH_URL?: string;

  /** An admin API token of that Unleash (never logged). */
  @IsOptional()
  @IsString()
  @Matches(/^\S+$/, { message: 'must not contain spaces' })
  UNLEASH_API_TOKEN?: string;

  /** The name of that Unleash's session cookie (its `session.cookieName` option), checked with UNLEASH_API_URL. */
  @Matches(/^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,128}$/, { message: 'must be a cookie name' })
  UNLEASH_SESSION_COOKIE = 'unleash-session';

  /** Pins the read clock (RFC 3339), for tests and demos. */
  @IsOptional()
  @Matches(RFC3339, { message: 'must be an RFC 3339 date-time, e.g. 2026-11-22T09:01:00Z' })
  FLAGLENS_CLOCK?: string;

  /**
   * What KAFKA_TOPIC carries: `unleash`, the contract's events (our connector, the CLI's publish), or
   * `debezium`, Debezium's change events of Unleash's `events` table (docs/debezium.md).
   */
  @IsIn(['unleash', 'debezium'], { message: 'must be unleash or debezium' })
  EVENT_FORMAT: 'unleash' | 'debezium' = 'unleash';

  /**
   * Store (and answer) valid events of a type flaglens does not know, an Unleash newer than it, like any other
   * audit record, counted on `flaglens_projector_unknown_event_types_total`; `false` dead-letters them instead.
   */
  @Transform(toBool)
  @IsBoolean()
  ACCEPT_UNKNOWN_EVENT_TYPES = true;

  /** Largest accepted event value in bytes; larger ones are dead-lettered. */
  @Transform(toInt)
  @IsInt()
  @Min(1024)
  @Max(64 * 1024 * 1024)
  MAX_EVENT_BYTES = 1024 * 1024;

  /** How many transactions one projector runs at once (each on its own connection; waiting partitions share one). */
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(64)
  PROJECTOR_CONCURRENCY = 2;

  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(100)
  DB_POOL_SIZE = 10;

  /** Every query the api sends is cancelled past this many milliseconds (Postgres statement_timeout). */
  @Transform(toInt)
  @IsInt()
  @Min(100)
  @Max(600_000)
  API_STATEMENT_TIMEOUT_MS = 10_000;

  /** Memory for cached api responses, dropped by the projector's change feed; 0 turns caching off.
   *  Off by itself when DATABASE_READ_URL is set (a replica may lag the feed). */
  @Transform(toInt)
  @IsInt()
  @Min(0)
  @Max(4096)
  API_CACHE_MB = 64;

  /** Kafka consumer session timeout: how soon a dead projector's partitions move to a live one. */
  @Transform(toInt)
  @IsInt()
  @Min(6000)
  @Max(300000)
  KAFKA_SESSION_TIMEOUT_MS = 30000;

  /**
   * Who keeps the tables' statistics and dead rows (ANALYZE, VACUUM): `auto`, the projector by autovacuum's
   * rules while the server's autovacuum is off, else the server; `on`, the projector always; `off`, never the
   * projector (docs/operations.md, "Table maintenance"). The search index's pending list is merged by the
   * projector with `auto` and `on`, whatever the server does (docs/operations.md, "The search index's pending list").
   */
  @IsIn(['auto', 'on', 'off'], { message: 'must be auto, on or off' })
  PROJECTOR_TABLE_MAINTENANCE: 'auto' | 'on' | 'off' = 'auto';

  /** A projector partition that is behind and whose stored position has not moved this long is not ready. */
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(3600)
  PROJECTOR_STALL_SECONDS = 60;

  /** When set, /metrics (both apps) needs `Authorization: Bearer <METRICS_TOKEN>`; unset: open. */
  @IsOptional()
  @IsString()
  @Matches(/^\S{16,}$/, { message: 'must be at least 16 characters without spaces' })
  METRICS_TOKEN?: string;

  /**
   * The most weeks one insights report covers (ten years by default): without `from` it starts at most this
   * many weeks back, so an event dated in year 1000 does not make it 53,000 weeks long; a longer range is a 400.
   */
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(5200)
  INSIGHTS_MAX_WEEKS = 520;

  /**
   * Reads as of an instant start from a checkpoint (docs/design.md, "Reads as of an instant"): the projector
   * makes one every this many events of the log in `createdAt` order. Fewer events between checkpoints: faster
   * reads, more storage (one compressed copy of the projections, but the log, per checkpoint) and more of the
   * projector's time while idle. 0: none made. Figures per setting: docs/performance-reads.md.
   */
  @Transform(toInt)
  @IsInt()
  @Min(0)
  @Max(10_000_000)
  AS_OF_CHECKPOINT_EVENTS = 500;

  /**
   * A read as of an instant replays the events between its checkpoint and the instant; one that would replay
   * more than this (checkpoints not yet made that far, as after a backfill) is refused at once with 503 and the
   * reason, instead of working until the statement timeout.
   */
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(1_000_000_000)
  AS_OF_MAX_REPLAY_EVENTS = 200_000;

  /**
   * `GET /api/admin/diff` lists the events of the range within the read's scope a page at a time: at most this
   * many in one answer, the rest on the pages its `eventsNext` leads to (`GET /api/admin/diff/events`).
   */
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(100_000)
  DIFF_MAX_EVENTS = 1_000;

  @IsIn(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])
  LOG_LEVEL = 'info';

  /**
   * Authentication of /api/admin routes (personal access tokens, `token create`). `off` only for local
   * experiments: every caller is then the initial admin user.
   */
  @IsIn(['on', 'off'])
  FLAGLENS_AUTH = 'on';
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n  - ${problems.join('\n  - ')}`);
    this.name = 'ConfigError';
  }
}

/** Reads and validates the configuration from an environment map; throws ConfigError naming each bad variable. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): AppConfig {
  const defaults = new AppConfig();
  const raw: Record<string, unknown> = {};
  for (const key of Object.keys(defaults) as (keyof AppConfig)[]) {
    if (env[key] !== undefined && env[key] !== '') raw[key] = env[key];
  }
  for (const key of [
    ...KAFKA_SECURITY_KEYS,
    'DATABASE_READ_URL',
    'FLAGLENS_CLOCK',
    'METRICS_TOKEN',
    'UNLEASH_DATABASE_URL',
    'UNLEASH_API_URL',
    'UNLEASH_API_TOKEN',
    'UNLEASH_URL',
  ] as const) {
    if (env[key] !== undefined && env[key] !== '') raw[key] = env[key];
  }
  const config = plainToInstance(AppConfig, raw, { exposeDefaultValues: true });
  const errors = validateSync(config, { forbidUnknownValues: false });
  const problems = errors.map((e) => {
    const value = (raw as Record<string, unknown>)[e.property];
    const shown = e.property.includes('URL')
      ? redactUrl(String(value))
      : /TOKEN|PASSWORD/.test(e.property)
        ? '***'
        : JSON.stringify(value);
    return `${e.property}=${shown}: ${Object.values(e.constraints ?? {}).join('; ')}`;
  });
  if (problems.length === 0) problems.push(...kafkaSecurityProblems(config));
  if (problems.length > 0) throw new ConfigError(problems);
  return config;
}

/** The variables of the Kafka connection's security (TLS, SASL); all optional. */
export const KAFKA_SECURITY_KEYS = [
  'KAFKA_SSL',
  'KAFKA_SSL_CA_FILE',
  'KAFKA_SSL_CERT_FILE',
  'KAFKA_SSL_KEY_FILE',
  'KAFKA_SSL_KEY_PASSWORD',
  'KAFKA_SASL_MECHANISM',
  'KAFKA_SASL_USERNAME',
  'KAFKA_SASL_PASSWORD',
] as const;

/** Whether the Kafka connection uses TLS: KAFKA_SSL=true, or any KAFKA_SSL_*_FILE set. */
export function kafkaTlsEnabled(config: AppConfig): boolean {
  return (
    config.KAFKA_SSL === true ||
    (config.KAFKA_SSL === undefined &&
      Boolean(config.KAFKA_SSL_CA_FILE || config.KAFKA_SSL_CERT_FILE || config.KAFKA_SSL_KEY_FILE))
  );
}

/**
 * The combinations of the Kafka security variables, and the files they name: each file must be readable PEM
 * (a certificate, a key that opens with its passphrase), so a wrong mount fails at start-up, not at the first
 * connection. The messages name variables and paths, never a secret.
 */
function kafkaSecurityProblems(c: AppConfig): string[] {
  const problems: string[] = [];
  const anyFile = c.KAFKA_SSL_CA_FILE || c.KAFKA_SSL_CERT_FILE || c.KAFKA_SSL_KEY_FILE;
  if (c.KAFKA_SSL === false && anyFile)
    problems.push(
      'KAFKA_SSL=false: contradicts the KAFKA_SSL_*_FILE variables set (remove one or the other)',
    );
  if (Boolean(c.KAFKA_SSL_CERT_FILE) !== Boolean(c.KAFKA_SSL_KEY_FILE))
    problems.push('KAFKA_SSL_CERT_FILE and KAFKA_SSL_KEY_FILE: set both (mutual TLS) or neither');
  if (c.KAFKA_SSL_KEY_PASSWORD && !c.KAFKA_SSL_KEY_FILE)
    problems.push('KAFKA_SSL_KEY_PASSWORD=***: set without KAFKA_SSL_KEY_FILE');
  const read = (name: string, path: string | undefined, check: (pem: string) => void): void => {
    if (!path) return;
    let pem: string;
    try {
      pem = readFileSync(path, 'utf8');
    } catch (e) {
      problems.push(
        `${name}=${JSON.stringify(path)}: cannot be read (${(e as NodeJS.ErrnoException).code ?? 'error'})`,
      );
      return;
    }
    try {
      check(pem);
    } catch {
      problems.push(
        `${name}=${JSON.stringify(path)}: not a readable PEM ${name.includes('KEY') ? 'private key (or a wrong KAFKA_SSL_KEY_PASSWORD)' : 'certificate'}`,
      );
    }
  };
  read('KAFKA_SSL_CA_FILE', c.KAFKA_SSL_CA_FILE, (pem) => void new X509Certificate(pem));
  read('KAFKA_SSL_CERT_FILE', c.KAFKA_SSL_CERT_FILE, (pem) => void new X509Certificate(pem));
  read('KAFKA_SSL_KEY_FILE', c.KAFKA_SSL_KEY_FILE, (pem) =>
    createPrivateKey({ key: pem, format: 'pem', passphrase: c.KAFKA_SSL_KEY_PASSWORD }),
  );
  const sasl = [c.KAFKA_SASL_USERNAME, c.KAFKA_SASL_PASSWORD];
  if (c.KAFKA_SASL_MECHANISM) {
    if (!c.KAFKA_SASL_USERNAME)
      problems.push(`KAFKA_SASL_USERNAME: required with KAFKA_SASL_MECHANISM=${c.KAFKA_SASL_MECHANISM}`);
    if (!c.KAFKA_SASL_PASSWORD)
      problems.push(`KAFKA_SASL_PASSWORD: required with KAFKA_SASL_MECHANISM=${c.KAFKA_SASL_MECHANISM}`);
  } else if (sasl.some(Boolean)) {
    problems.push(
      'KAFKA_SASL_MECHANISM: required with KAFKA_SASL_USERNAME/KAFKA_SASL_PASSWORD (plain, scram-sha-256 or scram-sha-512)',
    );
  }
  return problems;
}

/** Removes a password from a connection URL before it is printed. */
export function redactUrl(url: string): string {
  return url.replace(/(\/\/[^:/@]+:)[^@]*@/, '$1***@');
}

/** The exit status of a process that refuses its configuration (sysexits' EX_CONFIG). */
export const EXIT_CONFIG = 78;

/** Loads the config or exits the process with the problem list (for app entry points). */
export function loadConfigOrExit(env: NodeJS.ProcessEnv = process.env): AppConfig {
  try {
    return loadConfig(env);
  } catch (e) {
    if (e instanceof ConfigError) {
      process.stderr.write(`flaglens: ${e.message}\n`);
      process.exit(EXIT_CONFIG);
    }
    throw e;
  }
}

/** The Unleash the event search's summaries link to: UNLEASH_URL, else UNLEASH_API_URL, else Unleash's default. */
export function unleashUrl(config: AppConfig): string {
  return config.UNLEASH_URL ?? config.UNLEASH_API_URL ?? 'http://localhost:4242';
}
