import { Pool, type PoolClient } from 'pg';

export interface DatabaseOptions {
  url: string;
  /** Connections at most. */
  max?: number;
  applicationName?: string;
  /** libpq options, e.g. a search_path (see searchPathOption). */
  options?: string;
}

/**
 * A Postgres connection pool (node-postgres) for the projector, the CLI and a rebuild: rows from `query`, a
 * client of its own from `connect` for a transaction. TypeORM is only the migration runner (migrations/).
 */
export class Database {
  readonly pool: Pool;

  constructor(opts: DatabaseOptions) {
    this.pool = new Pool({
      connectionString: opts.url,
      max: opts.max ?? 10,
      application_name: opts.applicationName ?? 'flaglens',
      connectionTimeoutMillis: 5000,
      keepAlive: true,
      ...(opts.options ? { options: opts.options } : {}),
    });
    // an idle connection the server or the network drops is discarded; the next query opens another
    this.pool.on('error', () => undefined);
  }

  /** The rows of one statement. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  async query<T = any>(sql: string, params?: unknown[]): Promise<T[]> {
    return (await this.pool.query(sql, params)).rows as T[];
  }

  /**
   * A client of its own (a transaction), to `release()` when done. While it is checked out the pool does not
   * listen to its errors, and pg emits a lost connection as an 'error' event besides failing the query that
   * used it: unheard, that event would crash the process. The failed query is how the caller learns of it.
   */
  async connect(): Promise<PoolClient> {
    const client = await this.pool.connect();
    if (!client.listeners('error').includes(ignoreLostConnection)) client.on('error', ignoreLostConnection);
    return client;
  }

  end(): Promise<void> {
    return this.pool.end();
  }
}

/** The checked-out clients' error listener: the query that used the connection fails with the same error. */
function ignoreLostConnection(): void {}
