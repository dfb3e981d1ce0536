import { createHash } from 'node:crypto';
import { Client, type Pool, type PoolClient } from 'pg';
import { openPool } from './connections';

export interface DatabaseOptions {
  url: string;
  /** Connections at most. */
  max?: number;
  applicationName?: string;
  /** libpq options, e.g. a search_path (see searchPathOption). */
  options?: string;
  /**
   * Each connection parses and plans a statement with small parameters once (`PreparingClient`), with a
   * generic plan (`plan_cache_mode=force_generic_plan`). For the projector's batches, whose few statements
   * repeat with new parameters at every batch: at 5,000 events/s (batches of ~80 events) planning them was a
   * quarter of Postgres' CPU.
   */
  prepared?: boolean;
}

/** Statements a connection prepares at most; any others run unnamed (parsed and planned each time). */
export const PREPARED_PER_CONNECTION = 256;
/**
 * The largest parameters a kept (generic) plan is used for: arrays of at most this many elements, strings
 * (JSON record sets) of at most `PREPARED_MAX_STRING` characters. A generic plan assumes a few rows per array
 * or record set; for a batch of thousands the plan for its actual sizes is better (a sequential scan where
 * the generic plan probes an index thousands of times), and planning is then a small part of the statement.
 */
export const PREPARED_MAX_ARRAY = 256;
export const PREPARED_MAX_STRING = 64 * 1024;

function smallParameters(values: readonly unknown[]): boolean {
  for (const v of values)
    if (
      Array.isArray(v)
        ? v.length > PREPARED_MAX_ARRAY
        : typeof v === 'string' && v.length > PREPARED_MAX_STRING
    )
      return false;
  return true;
}

/**
 * A client that names each statement with small parameters after its text (a hash), so that Postgres keeps
 * it parsed and planned for the connection (node-postgres prepares a named statement once per connection).
 * The same text with large parameters runs unnamed, planned for them. A statement built anew per call would
 * fill the connection with plans, so a connection names at most `PREPARED_PER_CONNECTION` texts. Postgres
 * plans a kept statement again by itself when a table it reads changes or the `search_path` it was planned
 * under is no longer the connection's.
 */
export class PreparingClient extends Client {
  private readonly names = new Map<string, string>();

  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  override query(config: any, values?: any, callback?: any): any {
    if (typeof config === 'string' && Array.isArray(values) && smallParameters(values)) {
      let name = this.names.get(config);
      if (name === undefined && this.names.size < PREPARED_PER_CONNECTION) {
        name = `fl_${createHash('sha1').update(config).digest('hex').slice(0, 24)}`;
        this.names.set(config, name);
      }
      if (name !== undefined) return super.query({ name, text: config, values }, callback);
    }
    return super.query(config, values, callback);
  }
}

/**
 * A Postgres connection pool (node-postgres) for the projector, the CLI and a rebuild: rows from `query`, a
 * client of its own from `connect` for a transaction. TypeORM is only the migration runner (migrations/).
 */
export class Database {
  readonly pool: Pool;

  constructor(opts: DatabaseOptions) {
    const options = [opts.options, opts.prepared ? '-c plan_cache_mode=force_generic_plan' : undefined]
      .filter(Boolean)
      .join(' ');
    // each connection owns its errors (./connections): a lost one fails its query, the pool opens another
    this.pool = openPool({
      connectionString: opts.url,
      max: opts.max ?? 10,
      application_name: opts.applicationName ?? 'flaglens',
      connectionTimeoutMillis: 5000,
      keepAlive: true,
      ...(options ? { options } : {}),
      ...(opts.prepared ? { Client: PreparingClient } : {}),
    });
  }

  /** The rows of one statement. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  async query<T = any>(sql: string, params?: unknown[]): Promise<T[]> {
    return (await this.pool.query(sql, params)).rows as T[];
  }

  /** A client of its own (a transaction), to `release()` when done; a lost connection fails its query. */
  connect(): Promise<PoolClient> {
    return this.pool.connect();
  }

  private ended?: Promise<void>;

  /** Closes every connection once they are released; a second call waits for the first. */
  end(): Promise<void> {
    this.ended ??= this.pool.end();
    return this.ended;
  }
}
