import type { ClientBase } from 'pg';
import { assertSchemaName } from './projection-versions';

/**
 * The projections' tables kept planned and tidy where the server does not: Postgres plans every read from a
 * table's statistics (ANALYZE) and reclaims the rows that updates leave behind (VACUUM), which its autovacuum
 * does by itself when it is on. With it off (a server set up so for tests, a managed one tuned badly), a table
 * loaded with millions of events keeps the statistics of an empty table: the planner guesses every condition
 * at a default selectivity (a pair of search filters read 97,000 rows instead of 50), and a table of 5,000 flags
 * updated a million times grows to 47 MB of dead rows that every batch walks past. This keeps each table by
 * autovacuum's own rules and defaults (the thresholds below), one table at a time, throttled as autovacuum is.
 */

/** autovacuum's defaults: a table is analyzed past 50 + 10% of its rows changed since its last ANALYZE */
export const ANALYZE_BASE = 50;
export const ANALYZE_SCALE = 0.1;
/** … vacuumed past 50 + 20% of its rows dead, or 1,000 + 20% inserted since its last VACUUM */
export const VACUUM_BASE = 50;
export const VACUUM_SCALE = 0.2;
export const VACUUM_INSERT_BASE = 1000;
export const VACUUM_INSERT_SCALE = 0.2;

/** One table's counters (`pg_stat_user_tables`) and its row estimate (`pg_class.reltuples`). */
export interface TableActivity {
  schema: string;
  table: string;
  /** the planner's estimate of its rows; -1 (Postgres 14+) or 0 before its first ANALYZE or VACUUM */
  estimatedRows: number;
  changedSinceAnalyze: number;
  insertedSinceVacuum: number;
  deadRows: number;
}

export interface MaintenanceDue {
  schema: string;
  table: string;
  analyze: boolean;
  vacuum: boolean;
  /**
   * the vacuum is due for the rows dead, so its indexes' entries of them go too; false: for the rows inserted
   * alone (the visibility map of an append-only table), and its indexes are left alone (`vacuumCommand`)
   */
  indexCleanup: boolean;
}

/** What autovacuum would do to the table now, by its rules. Pure. */
export function maintenanceDue(t: TableActivity): MaintenanceDue {
  const rows = Math.max(0, t.estimatedRows);
  const dead = t.deadRows > VACUUM_BASE + VACUUM_SCALE * rows;
  const vacuum = dead || t.insertedSinceVacuum > VACUUM_INSERT_BASE + VACUUM_INSERT_SCALE * rows;
  const analyze = t.changedSinceAnalyze > ANALYZE_BASE + ANALYZE_SCALE * rows;
  return { schema: t.schema, table: t.table, analyze, vacuum, indexCleanup: dead };
}

/**
 * The VACUUM a due table gets. One due for its inserted rows alone skips its indexes (INDEX_CLEANUP OFF): they
 * hold no entry of a dead row, and a VACUUM run by hand, unlike autovacuum's own, empties a GIN index's pending
 * list of every entry, those added while it runs too: on the event log during a backfill, a throttled VACUUM
 * that ends only when the writes do, holding the round (no table analyzed meanwhile), while the pages it
 * empties stay out of reuse until its end, so the trigram index grows to several times the log. The pending
 * list is merged by `flushPendingLists`, below.
 */
export const vacuumCommand = (d: Pick<MaintenanceDue, 'indexCleanup'>): string =>
  d.indexCleanup ? 'VACUUM' : 'VACUUM (INDEX_CLEANUP OFF)';

/**
 * The database's tables due for maintenance (every schema but Postgres's own and the sessions' temporary ones:
 * the projection versions, their checkpoints, the positions), the ones with the most changes first. The
 * counters come from the statistics collector and may trail the last few transactions by a moment; nothing is
 * lost by that, the next look sees them.
 */
export async function tablesDue(client: ClientBase): Promise<MaintenanceDue[]> {
  const { rows } = await client.query<{
    schema: string;
    table: string;
    estimated: string;
    changed: string;
    inserted: string;
    dead: string;
  }>(
    `SELECT s.schemaname AS schema, s.relname AS table, c.reltuples::float8::text AS estimated,
            s.n_mod_since_analyze::text AS changed, s.n_ins_since_vacuum::text AS inserted,
            s.n_dead_tup::text AS dead
       FROM pg_stat_user_tables s JOIN pg_class c ON c.oid = s.relid
      WHERE s.schemaname !~ '^pg_' AND s.schemaname <> 'information_schema'
      ORDER BY s.n_mod_since_analyze + s.n_dead_tup + s.n_ins_since_vacuum DESC, s.relname`,
  );
  return rows
    .map((r) =>
      maintenanceDue({
        schema: r.schema,
        table: r.table,
        estimatedRows: Number(r.estimated),
        changedSinceAnalyze: Number(r.changed),
        insertedSinceVacuum: Number(r.inserted),
        deadRows: Number(r.dead),
      }),
    )
    .filter((d) => d.analyze || d.vacuum);
}

/** The advisory lock one maintainer holds while it runs: several projectors take turns, never two at once. */
export const TABLE_MAINTENANCE_LOCK = 7_101_990_002;

/** Whether the server's autovacuum is on (then it keeps the tables, and nothing here needs to). */
export async function serverKeepsTables(client: ClientBase): Promise<boolean> {
  const { rows } = await client.query<{ on: boolean }>(
    `SELECT current_setting('autovacuum') = 'on' AND current_setting('track_counts') = 'on' AS on`,
  );
  return rows[0].on;
}

const quoted = (name: string) => `"${name.replace(/"/g, '""')}"`;

export interface Maintained {
  schema: string;
  table: string;
  /** `ANALYZE`, or a `vacuumCommand` */
  command: string;
  ms: number;
}

/**
 * Runs what is due on the tables of `due`, one statement at a time on `client` (outside any transaction: VACUUM
 * cannot run in one): every ANALYZE first (a sample of each table: quick), then the VACUUMs, so that a long
 * vacuum of a large table never holds back the statistics of the others. Throttled by autovacuum's default
 * cost delay so that a batch's writes keep their share of the disk; stops between statements once `shouldStop`
 * says so. A table dropped meanwhile (an old version after a rebuild's switch) is skipped. Returns what it ran.
 */
export async function maintainTables(
  client: ClientBase,
  due: readonly MaintenanceDue[],
  shouldStop: () => boolean = () => false,
): Promise<Maintained[]> {
  const done: Maintained[] = [];
  if (due.length === 0) return done;
  await client.query(`SET vacuum_cost_delay = '2ms'`);
  await client.query(`SET vacuum_cost_limit = 200`);
  try {
    const statements = [
      ...due.filter((d) => d.analyze).map((d) => ({ d, command: 'ANALYZE' })),
      ...due.filter((d) => d.vacuum).map((d) => ({ d, command: vacuumCommand(d) })),
    ];
    for (const { d, command } of statements) {
      if (shouldStop()) break;
      const t0 = Date.now();
      try {
        await client.query(`${command} ${quoted(d.schema)}.${quoted(d.table)}`);
      } catch (e) {
        // dropped since it was listed (undefined_table, invalid_schema_name)
        if (['42P01', '3F000'].includes((e as { code?: string }).code ?? '')) continue;
        throw e;
      }
      done.push({ schema: d.schema, table: d.table, command, ms: Date.now() - t0 });
    }
  } finally {
    // the connection goes back to its pool: its next user's VACUUM (an as-of maker's) is not throttled
    await client.query(`RESET vacuum_cost_delay; RESET vacuum_cost_limit`).catch(() => undefined);
  }
  return done;
}

/**
 * ANALYZE of every table of a schema, unthrottled: a version a rebuild has just loaded, before it is switched
 * in, so that its first reads are planned from what it holds, not from the statistics of empty tables.
 */
export async function analyzeSchema(client: Pick<ClientBase, 'query'>, schema: string): Promise<number> {
  const s = assertSchemaName(schema);
  const { rows } = await client.query<{ table: string }>(
    `SELECT c.relname AS table FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = $1 AND c.relkind IN ('r', 'p', 'm') ORDER BY c.relname`,
    [s],
  );
  for (const { table } of rows) await client.query(`ANALYZE ${quoted(s)}.${quoted(table)}`);
  return rows.length;
}

/**
 * `job`, run while `client`'s session holds the advisory lock `key` (taken without waiting, released after);
 * null when another session holds it.
 */
async function holdingLock<T>(client: ClientBase, key: number, job: () => Promise<T>): Promise<T | null> {
  const { rows } = await client.query<{ locked: boolean }>(`SELECT pg_try_advisory_lock($1) AS locked`, [
    key,
  ]);
  if (!rows[0].locked) return null;
  try {
    return await job();
  } finally {
    await client.query(`SELECT pg_advisory_unlock($1)`, [key]);
  }
}

/**
 * One round: what is due, run, under TABLE_MAINTENANCE_LOCK (held by `client`'s session for the round); null
 * when another maintainer holds it (its round covers the same tables).
 */
export async function keepTables(
  client: ClientBase,
  shouldStop: () => boolean = () => false,
): Promise<Maintained[] | null> {
  return holdingLock(client, TABLE_MAINTENANCE_LOCK, async () =>
    maintainTables(client, await tablesDue(client), shouldStop),
  );
}

/**
 * A GIN index (the event search's trigram index) takes a transaction's new entries into its pending list, and
 * the writer whose entries push the list past `gin_pending_list_limit` merges the whole list into the index
 * inside its own transaction: a batch of the projector stops for it, and the merge's cost grows with the index.
 * Flushed from another connection (`gin_clean_pending_list`), the merge runs beside the batches instead, with
 * `maintenance_work_mem` to sort in, and the writers find the list short: the limit stays a backstop. Each
 * flush takes the list as it was when it began: entries added meanwhile wait for the next.
 */
export interface PendingListFlush {
  schema: string;
  index: string;
  /** pending-list pages merged into the index */
  pages: number;
  ms: number;
}

/** The advisory lock one flusher holds while it runs: several projectors take turns. */
export const PENDING_LISTS_LOCK = 7_101_990_003;

/**
 * The GIN indexes this role may flush: valid and ready (not one being built), on a permanent table, in every
 * schema but Postgres's own, and owned by a role this one is a member of (`gin_clean_pending_list` asks
 * what VACUUM asks).
 */
export async function flushableGinIndexes(client: ClientBase): Promise<{ schema: string; index: string }[]> {
  const { rows } = await client.query<{ schema: string; index: string }>(
    `SELECT n.nspname AS schema, c.relname AS index
       FROM pg_index i
       JOIN pg_class c ON c.oid = i.indexrelid
       JOIN pg_am a ON a.oid = c.relam
       JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE a.amname = 'gin' AND i.indisvalid AND i.indisready AND c.relpersistence = 'p'
        AND n.nspname !~ '^pg_' AND n.nspname <> 'information_schema'
        AND pg_has_role(c.relowner, 'MEMBER')
      ORDER BY n.nspname, c.relname`,
  );
  return rows;
}

/**
 * Flushes the pending list of every flushable GIN index, one statement each, under PENDING_LISTS_LOCK (null
 * when another flusher holds it). An index dropped meanwhile (an old version after a rebuild's switch) is
 * skipped; `shouldStop` is asked between indexes.
 */
export async function flushPendingLists(
  client: ClientBase,
  shouldStop: () => boolean = () => false,
): Promise<PendingListFlush[] | null> {
  return holdingLock(client, PENDING_LISTS_LOCK, async () => {
    const done: PendingListFlush[] = [];
    for (const { schema, index } of await flushableGinIndexes(client)) {
      if (shouldStop()) break;
      const t0 = Date.now();
      let pages: number;
      try {
        const r = await client.query<{ pages: string | null }>(
          `SELECT gin_clean_pending_list(to_regclass($1))::text AS pages`,
          [`${quoted(schema)}.${quoted(index)}`],
        );
        // to_regclass answers null for an index dropped since it was listed, and so does the flush
        if (r.rows[0].pages === null) continue;
        pages = Number(r.rows[0].pages);
      } catch (e) {
        // dropped between to_regclass and the flush (undefined_table, invalid_schema_name, undefined_object)
        if (['42P01', '3F000', '42704'].includes((e as { code?: string }).code ?? '')) continue;
        throw e;
      }
      done.push({ schema, index, pages, ms: Date.now() - t0 });
    }
    return done;
  });
}
