import { createHash } from 'node:crypto';
import type { Pool } from 'pg';
import { openPool } from './connections';
import { activeVersion, searchPathOption } from './projection-versions';

export interface ReadPool {
  /** A pool whose connections resolve unqualified table names in the active projection version. */
  pool(): Pool;
}

/** True for a ReadPool; a `Database` has a `pool` too, but as a property, not a method. */
export function isReadPool(db: object): db is ReadPool {
  return typeof (db as Partial<ReadPool>).pool === 'function';
}

/**
 * Connections for reading projections. Each pool is bound (search_path) to one projection version; when a
 * rebuild switches the active version, `refresh` opens a pool on the new one and retires the old pool
 * after a grace period, so queries in flight finish on the version they started on.
 */
export class ActiveVersionPool implements ReadPool {
  private current?: { schema: string; pool: Pool };
  private refreshing?: Promise<boolean>;

  constructor(
    private readonly url: string,
    private readonly poolSize: number,
    private readonly graceMs = 30_000,
    /** Every statement of these connections is cancelled past this (Postgres `statement_timeout`); 0: none. */
    private readonly statementTimeoutMs = 0,
    /** An idle connection is closed after this long; 0: kept (e.g. for what it holds, as the as-of reads' tables). */
    private readonly idleTimeoutMs = 10_000,
    /** What its connections are called in `pg_stat_activity`. */
    private readonly applicationName = 'flaglens-api',
  ) {}

  get schema(): string | undefined {
    return this.current?.schema;
  }

  pool(): Pool {
    if (!this.current) throw new Error('no projection version is active yet');
    return this.current.pool;
  }

  /** Looks up the active version; returns true when it changed. Concurrent calls share one look-up. */
  refresh(): Promise<boolean> {
    this.refreshing ??= this.doRefresh().finally(() => (this.refreshing = undefined));
    return this.refreshing;
  }

  private async doRefresh(): Promise<boolean> {
    const probe = this.current?.pool ?? openPool({ connectionString: this.url, max: 1 });
    let active;
    try {
      active = await activeVersion(probe);
    } finally {
      if (!this.current) await probe.end();
    }
    if (!active) throw new Error('there is no active projection version: run `npm run migrate`');
    if (active.schema === this.current?.schema) return false;
    const old = this.current;
    // each connection owns its errors (./connections), idle or checked out (an as-of read, a cursor, a
    // checkpoint): a lost one fails its query and the pool opens another
    const pool = openPool({
      connectionString: this.url,
      max: this.poolSize,
      options:
        searchPathOption(active.schema) +
        (this.statementTimeoutMs > 0 ? ` -c statement_timeout=${Math.floor(this.statementTimeoutMs)}` : ''),
      application_name: this.applicationName,
      connectionTimeoutMillis: 5000,
      idleTimeoutMillis: this.idleTimeoutMs,
      keepAlive: true,
    });
    this.current = { schema: active.schema, pool };
    if (old) setTimeout(() => void old.pool.end().catch(() => undefined), this.graceMs).unref();
    return true;
  }

  async close(): Promise<void> {
    await this.current?.pool.end().catch(() => undefined);
    this.current = undefined;
  }
}

/** Something that runs SQL and gives the rows (a TypeORM DataSource is one). */
export interface RowQueryable {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  query<T = any>(sql: string, params?: unknown[]): Promise<T[]>;
}

/**
 * Row queries through a read pool (on the active projection version).
 *
 * `prepared`: each SQL text is a named statement (its name derived from the text), parsed once per connection,
 * after which Postgres plans it once for all parameter values when that plan costs no more than a custom one.
 * For a reader whose SQL texts are a fixed set (each connection keeps every statement it prepared), with
 * short statements run often, where planning costs more than running.
 */
export function rowsVia(reads: ReadPool, opts: { prepared?: boolean } = {}): RowQueryable {
  if (!opts.prepared)
    return {
      query: async <T>(sql: string, params?: unknown[]) =>
        (await reads.pool().query(sql, params)).rows as T[],
    };
  const names = new Map<string, string>();
  const nameOf = (sql: string) => {
    let name = names.get(sql);
    if (name === undefined)
      names.set(sql, (name = `flaglens-${createHash('sha1').update(sql).digest('hex').slice(0, 20)}`));
    return name;
  };
  return {
    query: async <T>(sql: string, params?: unknown[]) =>
      (await reads.pool().query({ name: nameOf(sql), text: sql, values: params })).rows as T[],
  };
}
