import 'reflect-metadata';
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
 * The README's configuration table mirrors this class.
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

  /** The source connector's health and metrics port (127.0.0.1), while it follows an Unleash. */
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(65535)
  CONNECTOR_PORT = 4244;

  /** Unleash's Postgres, read by `source unleash` (a read-only role is enough; docs/source-connector.md). */
  @IsOptional()
  @Matches(POSTGRES_URL, { message: 'must be a postgres:// URL' })
  UNLEASH_DATABASE_URL?: string;

  /** Unleash's base URL for `source unleash` without database access (with UNLEASH_API_TOKEN). */
  @IsOptional()
  @Matches(/^https?:\/\/\S+$/, { message: 'must be an http(s):// URL' })
  UNLEASH_API_URL?: string;

  /** An admin API token of that Unleash (never logged). */
  @IsOptional()
  @IsString()
  @Matches(/^\S+$/, { message: 'must not contain spaces' })
  UNLEASH_API_TOKEN?: string;

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

  /** Store events of a type outside api-spec part 6 in the flag's event list instead of dead-lettering them. */
  @Transform(toBool)
  @IsBoolean()
  ACCEPT_UNKNOWN_EVENT_TYPES = false;

  /** Largest accepted event value in bytes; larger ones are dead-lettered. */
  @Transform(toInt)
  @IsInt()
  @Min(1024)
  @Max(64 * 1024 * 1024)
  MAX_EVENT_BYTES = 1024 * 1024;

  /** How many partitions one projector applies at once (each on its own connection). */
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
    'DATABASE_READ_URL',
    'FLAGLENS_CLOCK',
    'METRICS_TOKEN',
    'UNLEASH_DATABASE_URL',
    'UNLEASH_API_URL',
    'UNLEASH_API_TOKEN',
  ] as const) {
    if (env[key] !== undefined && env[key] !== '') raw[key] = env[key];
  }
  const config = plainToInstance(AppConfig, raw, { exposeDefaultValues: true });
  const errors = validateSync(config, { forbidUnknownValues: false });
  if (errors.length > 0) {
    throw new ConfigError(
      errors.map((e) => {
        const value = (raw as Record<string, unknown>)[e.property];
        const shown = e.property.includes('URL')
          ? redactUrl(String(value))
          : e.property.includes('TOKEN')
            ? '***'
            : JSON.stringify(value);
        return `${e.property}=${shown}: ${Object.values(e.constraints ?? {}).join('; ')}`;
      }),
    );
  }
  return config;
}

/** Removes a password from a connection URL before it is printed. */
export function redactUrl(url: string): string {
  return url.replace(/(\/\/[^:/@]+:)[^@]*@/, '$1***@');
}

/** Loads the config or exits the process with the problem list (for app entry points). */
export function loadConfigOrExit(env: NodeJS.ProcessEnv = process.env): AppConfig {
  try {
    return loadConfig(env);
  } catch (e) {
    if (e instanceof ConfigError) {
      process.stderr.write(`flaglens: ${e.message}\n`);
      process.exit(78); // EX_CONFIG
    }
    throw e;
  }
}
