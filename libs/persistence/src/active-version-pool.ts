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
 * Whether a statement's failure may be the doing of a version switch: an error Postgres raised (it has a
 * SQLSTATE), other than the connection's (08, 57P: a shutdown, a restart) or the values' (22 data exception, 23
 * integrity). The old version dropped under a statement fails it in several ways: a table or a function gone
 * (42P01, 42883), a deadlock with the `DROP SCHEMA` (40P01), a wait behind it cut short (55P03, 57014).
 */
function mayBeSwitch(e: unknown): boolean {
  const code = (e as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) && !/^(08|22|23|57P)/.test(code);
}

/**
 * The settings of every connection that reads projections (libpq `options`): JIT compilation off. The reads are
 * short statements, and some are planned from estimates a generated series of weeks makes poor (the insights'
 * current week: 1.5 million rows expected, 43,000 read), which push their cost past `jit_above_cost`; the
 * compilation then takes longer than the statement (378 of 566 ms at 10 million events) and never pays for
 * itself (docs/design.md, "Reads").
 */
export const READ_SESSION_OPTIONS = '-c jit=off';

/**
 * Connections for reading projections. Each pool is bound (search_path) to one projection version; when a
 * rebuild switches the active version, `refresh` opens a pool on the new one and retires the old pool
 * after a grace period, so queries in flight finish on the version they started on.
 *
 * A rebuild drops the old version a while after its switch (`--drop-old-after`), which a reader may learn of
 * only later (its periodic check, a change notice lost): a statement of a pool's `query` that fails once its
 * version is no longer the active one is run again, once, on the active version, instead of failing its read.
 */
export class ActiveVersionPool implements ReadPool {
  private current?: { schema: string; pool: Pool; query: Pool['query'] };
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
    // the pool's own query: a failed look-up is not retried through this very refresh
    const probe = this.current ? undefined : openPool({ connectionString: this.url, max: 1 });
    let active;
    try {
      active = await activeVersion(probe ?? { query: this.current!.query });
    } finally {
      await probe?.end();
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
        `${searchPathOption(active.schema)} ${READ_SESSION_OPTIONS}` +
        (this.statementTimeoutMs > 0 ? ` -c statement_timeout=${Math.floor(this.statementTimeoutMs)}` : ''),
      application_name: this.applicationName,
      connectionTimeoutMillis: 5000,
      idleTimeoutMillis: this.idleTimeoutMs,
      keepAlive: true,
    });
    this.current = { schema: active.schema, pool, query: this.followSwitches(pool, active.schema) };
    if (old) setTimeout(() => void old.pool.end().catch(() => undefined), this.graceMs).unref();
    return true;
  }

  /**
   * Makes `pool.query` (promise form) run a failed statement again, once, on the active version when the
   * version it ran on (`schema`) is no longer the active one; returns the pool's own `query`.
   */
  private followSwitches(pool: Pool, schema: string): Pool['query'] {
    const own = pool.query.bind(pool) as Pool['query'];
    const run = own as (...args: unknown[]) => Promise<unknown>;
    pool.query = (async (...args: unknown[]) => {
      // a callback or a submittable (a cursor): as pg runs it
      const [first, ...rest] = args;
      if (
        rest.some((a) => typeof a === 'function') ||
        typeof (first as { submit?: unknown })?.submit === 'function'
      )
        return run(...args);
      try {
        return await run(...args);
      } catch (e) {
        if (!(await this.switchedFrom(schema, e))) throw e;
        return (this.current!.query as (...a: unknown[]) => Promise<unknown>)(...args);
      }
    }) as Pool['query'];
    return own;
  }

  /** Whether `schema` is no longer the active version (looked up again when `e` may be a switch's doing). */
  private async switchedFrom(schema: string, e: unknown): Promise<boolean> {
    if (this.current?.schema === schema) {
      if (!mayBeSwitch(e)) return false;
      try {
        await this.refresh();
      } catch {
        return false;
      }
    }
    return this.current !== undefined && this.current.schema !== schema;
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
