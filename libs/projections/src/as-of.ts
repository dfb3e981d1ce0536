import { setImmediate as yieldToLoop } from 'node:timers/promises';
import { createHash } from 'node:crypto';
import type { PoolClient } from 'pg';
import type { QueryRunner } from 'typeorm';
import { parseEvent } from '@flaglens/contract';
import { assertSchemaName, type RowQueryable } from '@flaglens/persistence';
import { applyProjections } from './apply-projections';
import { appendEvents } from './event-log/event-log.projection';
import { PROJECTIONS_OWN_MIGRATIONS } from './migrations';
import { READS_ANYTHING, type Reads } from './change-feed';
import type { Projection, SourcedEvent } from './projection';
import { allProjections, projectionsFor, tablesLeftOut } from './registry';

/**
 * Events per replayed batch: the projector's largest group (docs/architecture.md, "Exactly once"), so no
 * statement of a projection meets a batch larger than the projector sends it.
 */
export const AS_OF_BATCH = 5000;
/** Events parsed between two turns of the event loop while replaying (a few milliseconds of work). */
export const AS_OF_PARSE_SLICE = 250;

/**
 * Tables a checkpoint does not keep: the event log (a read from a checkpoint sees the version's own log up to
 * the checkpoint's instant, then the replayed events) and the event search's counts, which no read as of an
 * instant reads (the search as of an instant counts the log itself). After a checkpoint is loaded the counts
 * hold only the replayed events' part.
 */
const NOT_KEPT = new Set(['event_log', 'event_counts', 'event_search_counts']);

/** What a read as of an instant replayed, for logs and the bench. */
export interface AsOfReplay {
  /** events replayed: those stored up to the instant, or those after the checkpoint used */
  events: number;
  /** the checkpoint the replay started from (its instant), if one was used */
  checkpoint: string | null;
  /** ms spent reading the events from the event log (and choosing a checkpoint) */
  loadMs: number;
  /** ms spent making the tables fresh: a checkpoint's rows loaded, or nothing (the session's fresh tables) */
  freshMs: number;
  /** ms spent replaying the events (parsed again) through the event log and every projection */
  replayMs: number;
  /** ms spent by `read` */
  readMs: number;
}

/** One event log row as the replay reads it. */
interface LogRow {
  body: string;
  known_type: boolean;
  id: string;
  created_at: Date;
  source_topic: string | null;
  source_partition: number | null;
  source_offset: string | null;
}

/** A checkpoint as its row keeps it (docs/design.md, "Reads as of an instant"). */
interface CheckpointRow {
  id: number;
  upto: Date;
  events: string;
  positions: Positions;
}

/**
 * Where the events up to a checkpoint's instant end in the replay's order, per partition (`null`: the events
 * without a position, ordered by id): the highest offset (id) among them.
 */
type Positions = Record<string, string>;

const partitionKey = (p: number | null): string => (p === null ? 'null' : String(p));
const positionOf = (r: Pick<LogRow, 'source_partition' | 'source_offset' | 'id'>): bigint =>
  BigInt(r.source_partition === null ? r.id : (r.source_offset ?? r.id));

/** The fresh tables a session keeps, per connection (`keep: true`). */
interface Session {
  /** the projection tables in pg_temp, but the log's, in name order */
  tables: string[];
  /** the tables' names, columns and types: a checkpoint made of other tables is not used */
  shape: string;
  /** the tables with rows when fresh (the seeds of a new installation): every other one is empty then */
  seeded: string[];
}
const sessions = new WeakMap<PoolClient, Session>();

/**
 * The projections' tables, fresh, in the session's temporary schema: the projections' migrations
 * (PROJECTIONS_OWN_MIGRATIONS, in the order a new version runs them), with the seeds of a new installation,
 * committed, so that every later transaction of the session that is rolled back finds them fresh again (the
 * dead rows it leaves are reclaimed by `tidyAsOf`).
 * Postgres resolves an unqualified table name in `pg_temp` before any schema of the search path (also inside
 * `identity_apply`, whose pinned path does not name `pg_temp`): from now on they shadow the version's tables
 * on this connection, which reads the version's log only by its qualified name.
 */
async function freshTables(client: PoolClient): Promise<Session> {
  const known = sessions.get(client);
  if (known) return known;
  const [{ search_path }] = (await client.query<{ search_path: string }>('SHOW search_path')).rows;
  await client.query('BEGIN');
  try {
    await client.query(`SET LOCAL search_path TO pg_temp, ${search_path}`);
    const runner = {
      query: async (sql: string, params?: unknown[]) => (await client.query(sql, params)).rows,
    } as unknown as QueryRunner;
    for (const m of PROJECTIONS_OWN_MIGRATIONS) await new m().up(runner);
    const { rows } = await client.query<{ t: string; cols: string }>(
      `SELECT c.relname AS t, string_agg(a.attname || ' ' || format_type(a.atttypid, a.atttypmod), ', '
                                         ORDER BY a.attnum) AS cols
         FROM pg_class c JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
        WHERE c.relnamespace = pg_my_temp_schema() AND c.relkind = 'r'
        GROUP BY c.relname ORDER BY c.relname`,
    );
    const tables = rows.map((r) => r.t).filter((t) => t !== 'event_log');
    const seeded = await client.query<{ t: string }>(
      tables.map((t) => `SELECT '${t}' AS t WHERE EXISTS (SELECT 1 FROM pg_temp.${t})`).join('\nUNION ALL '),
    );
    await client.query('COMMIT');
    const kept = rows.filter((r) => !NOT_KEPT.has(r.t));
    const session = {
      tables,
      seeded: seeded.rows.map((r) => r.t),
      shape: createHash('sha256')
        .update(kept.map((r) => `${r.t}(${r.cols})`).join('\n'))
        .digest('hex')
        .slice(0, 32),
    };
    sessions.set(client, session);
    return session;
  } catch (e) {
    await client.query('ROLLBACK').catch(() => undefined);
    await client.query('DISCARD TEMP').catch(() => undefined);
    throw e;
  }
}

/**
 * Reclaims the dead rows that reads as of an instant left in a connection's kept fresh tables (`keep: true`):
 * the rows each read wrote, rolled back. Autovacuum never visits a session's temporary tables, so without this
 * they would grow read after read. The api runs it after a read's answer is sent, before the connection is
 * used again: off the read's path. A connection without kept tables: nothing to do.
 */
export async function tidyAsOf(client: PoolClient): Promise<void> {
  const session = sessions.get(client);
  if (!session) return;
  await client.query(`VACUUM ${['event_log', ...session.tables].map((t) => `pg_temp.${t}`).join(', ')}`);
}

/** The session's fresh tables dropped: the connection reads the version's tables again. */
async function dropFreshTables(client: PoolClient): Promise<void> {
  sessions.delete(client);
  await client.query('DISCARD TEMP');
}

/** The schema of a version's checkpoints: beside it, derived data that may be dropped at any time. */
export const checkpointSchema = (version: string): string => `${assertSchemaName(version)}_as_of`;

/** The version this connection is bound to (the first schema of its search path). */
async function versionOf(client: PoolClient): Promise<string> {
  const [{ v }] = (await client.query<{ v: string }>('SELECT current_schema() AS v')).rows;
  return assertSchemaName(v);
}

/**
 * The newest usable checkpoint at or before `at` (none: null): of the session's shape, and made of exactly
 * the events now stored up to its instant (the log only grows, so an equal count is the same events; a late
 * event, stored after it was made with a `createdAt` up to its instant, makes it unusable). The maker drops
 * the unusable ones at its next look.
 */
async function usableCheckpoint(
  client: PoolClient,
  version: string,
  shape: string,
  at: string,
): Promise<CheckpointRow | null> {
  const schema = checkpointSchema(version);
  const [{ exists }] = (
    await client.query<{ exists: boolean }>(`SELECT to_regclass($1) IS NOT NULL AS exists`, [
      `${schema}.checkpoints`,
    ])
  ).rows;
  if (!exists) return null;
  const { rows } = await client.query<CheckpointRow>(
    `SELECT k.id, k.upto, k.events::text AS events, k.positions FROM ${schema}.checkpoints k
      WHERE k.shape = $1 AND k.upto <= $2::timestamptz ORDER BY k.upto DESC`,
    [shape, at],
  );
  return rows[await newestUsable(client, version, rows)] ?? null;
}

/**
 * The index of the newest usable checkpoint of `rows` (newest first; rows.length: none). A late event makes
 * every checkpoint from its instant on unusable and none before it, so it is found by halves: a few counts
 * of the log's events up to an instant (an index-only scan).
 */
async function newestUsable(
  client: PoolClient,
  version: string,
  rows: readonly Pick<CheckpointRow, 'upto' | 'events'>[],
): Promise<number> {
  const usable = async (k: Pick<CheckpointRow, 'upto' | 'events'>) =>
    (
      await client.query<{ n: string }>(
        `SELECT count(*)::text AS n FROM ${version}.event_log WHERE created_at <= $1::timestamptz`,
        [k.upto],
      )
    ).rows[0].n === k.events;
  if (rows.length === 0 || (await usable(rows[0]))) return 0;
  let [lo, hi] = [1, rows.length]; // rows[lo - 1] is not usable; rows[hi] is, or is none
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (await usable(rows[mid])) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

/**
 * Inside the caller's open repeatable-read transaction on a connection with fresh tables (`freshTables`),
 * brings the tables to the state a flaglens fed only the events stored with `createdAt` at or before `at`
 * would hold: from the newest usable checkpoint (its rows loaded, the version's log up to `at` seen through a
 * view named `event_log`), or from the fresh tables, the events after it replayed as the projector applies
 * them (the event log first, then `projections`, in the registry's order, in batches of AS_OF_BATCH), in the
 * projector's order per key; `readOnly`: the transaction made read-only before the replay. The tables of the
 * projections left out are neither loaded nor written: they stay fresh, and the read must not read them.
 */
async function replayUpTo(
  client: PoolClient,
  session: Session,
  at: string,
  useCheckpoints: boolean,
  readOnly: boolean,
  projections: readonly Projection[] = allProjections(),
): Promise<Omit<AsOfReplay, 'readMs'>> {
  const unused = tablesLeftOut(projections);
  const t = performance.now();
  const version = await versionOf(client);
  const order =
    // the projector's order per key: a key's events share a partition, stored in offset order; events
    // without a position (fed in code) in id order. Keys interleave freely (docs/design.md, "Determinism").
    'ORDER BY l.source_partition NULLS FIRST, l.source_offset NULLS FIRST, l.id';
  const columns = `l.body, l.known_type, l.id::text AS id, l.created_at, l.source_topic, l.source_partition,
                   l.source_offset::text AS source_offset`;
  let checkpoint = useCheckpoints ? await usableCheckpoint(client, version, session.shape, at) : null;
  let rows: LogRow[] = [];
  if (checkpoint) {
    rows = (
      await client.query<LogRow>(
        `SELECT ${columns} FROM ${version}.event_log l
          WHERE l.created_at > $1::timestamptz AND l.created_at <= $2::timestamptz ${order}`,
        [checkpoint.upto, at],
      )
    ).rows;
    // each of these must come after the checkpoint's events of its partition in the replay's order;
    // one that does not (stored out of order since) is replayed with the rest from the start
    const ends = checkpoint.positions;
    const inOrder = rows.every((r) => {
      const end = ends[partitionKey(r.source_partition)];
      return end === undefined || positionOf(r) > BigInt(end);
    });
    if (!inOrder) checkpoint = null;
  }
  if (!checkpoint)
    rows = (
      await client.query<LogRow>(
        `SELECT ${columns} FROM ${version}.event_log l WHERE l.created_at <= $1::timestamptz ${order}`,
        [at],
      )
    ).rows;
  const [{ release_id, release }] = (
    await client.query<{ release_id: string | null; release: string | null }>(
      `SELECT (SELECT event_id::text FROM ${version}.unleash_release) AS release_id,
              (SELECT release FROM ${version}.unleash_release) AS release`,
    )
  ).rows;

  const t0 = performance.now();
  // plans kept by this session (a pooled connection's prepared statements, identity_apply's) may have been
  // made for other tables: planned again, they see the fresh ones
  await client.query('DISCARD PLANS');
  let log = 'event_log';
  if (checkpoint) {
    const schema = checkpointSchema(version);
    const kept = new Set(session.tables.filter((tb) => !NOT_KEPT.has(tb)));
    const id = Number(checkpoint.id);
    const { rows: has } = await client.query<{ tbl: string }>(
      `SELECT tbl FROM ${schema}.checkpoint_rows WHERE id = $1 ORDER BY tbl`,
      [id],
    );
    const unknown = has.find((r) => !kept.has(r.tbl));
    if (unknown) throw new Error(`checkpoint ${id} holds rows of ${unknown.tbl}, not a table it keeps`);
    const used = (tb: string) => !unused.has(tb);
    // one round trip: the fresh rows out (only the seeded tables have any: each read is rolled back), the
    // checkpoint's in (each table's rows one value, read back as an array of its rows). The log is the
    // version's up to the instant (the replayed events are written to the fresh log, renamed, which nothing
    // reads): read as one table, the reads get the version's plans (Postgres plans a union whose branch has a
    // filter far worse). While applying, a projection reads of the log only its earliest instant (projects: is
    // this the log's first event?), which no event after the checkpoint changes; the property tests
    // (as-of.int-spec.ts) compare every read from a checkpoint with a fresh flaglens, so one that read more of
    // it would fail them.
    const upto = new Date(at).toISOString();
    await client.query(
      [
        ...session.seeded.filter(used).map((tb) => `DELETE FROM pg_temp.${tb}`),
        ...has
          .filter((r) => used(r.tbl))
          .map(
            ({ tbl: tb }) =>
              `INSERT INTO pg_temp.${tb} SELECT * FROM unnest((SELECT r.rows FROM ${schema}.checkpoint_rows r
               WHERE r.id = ${id} AND r.tbl = '${tb}')::pg_temp.${tb}[])`,
          ),
        `ALTER TABLE pg_temp.event_log RENAME TO event_log_replayed`,
        `CREATE TEMP VIEW event_log AS
           SELECT * FROM ${version}.event_log WHERE created_at <= '${upto}'::timestamptz`,
      ].join(';\n'),
    );
    log = 'event_log_replayed';
  }
  // a write that would reach a table of the version, or of `public`, fails instead of happening (Postgres
  // still lets a read-only transaction write temporary tables)
  if (readOnly) await client.query('SET LOCAL transaction_read_only = on');
  const t1 = performance.now();

  const sourced = (r: LogRow): SourcedEvent => {
    const parsed = parseEvent(r.body, { allowUnknownTypes: true, maxBytes: Number.MAX_SAFE_INTEGER });
    if (!parsed.ok) throw new Error(`event ${r.id} of the log does not parse: ${parsed.reason}`);
    return {
      event: parsed.event,
      knownType: r.known_type,
      // where it came from, as the log keeps it
      topic: r.source_topic,
      partition: r.source_partition,
      offset: r.source_offset === null ? null : Number(r.source_offset),
      raw: Buffer.from(r.body, 'utf8'),
      // only the newest word on the release is kept (unleash_release): it holds as of any instant at or
      // after the event that said it
      ...(r.id === release_id && release !== null ? { release } : {}),
    };
  };
  for (let i = 0; i < rows.length; i += AS_OF_BATCH) {
    // parsed a slice at a time, with a turn of the event loop in between: a long replay in the api must not
    // hold its probes and other requests back (docs/performance-reads.md)
    const batch: SourcedEvent[] = [];
    for (let j = i; j < Math.min(rows.length, i + AS_OF_BATCH); j += AS_OF_PARSE_SLICE) {
      if (j > 0) await yieldToLoop();
      for (const r of rows.slice(j, Math.min(j + AS_OF_PARSE_SLICE, i + AS_OF_BATCH))) batch.push(sourced(r));
    }
    const stored = await appendEvents(client, batch, log);
    await applyProjections(client, stored, projections);
  }
  return {
    events: rows.length,
    checkpoint: checkpoint ? checkpoint.upto.toISOString() : null,
    loadMs: t0 - t,
    freshMs: t1 - t0,
    replayMs: performance.now() - t1,
  };
}

export interface AsOfOptions {
  /**
   * Keep the fresh tables on the connection after the read (the next read on it skips making them): for a
   * connection used only for reads as of an instant, as the api's. Without it they are dropped after the
   * read, and the connection reads the version's tables again.
   */
  keep?: boolean;
  /** Start from the newest usable checkpoint (default); false: replay every event up to the instant. */
  checkpoints?: boolean;
  /**
   * What `read` reads (the declarations of its read models, as the caches', change-feed.ts `Reads`): only the
   * projections these need are replayed and only their tables loaded (registry.ts `projectionsFor`); the
   * others' tables stay fresh. Default: every projection.
   */
  reads?: readonly Reads[];
}

/**
 * Runs `read` as a flaglens fed only the events stored with `createdAt` at or before `at` would run it
 * (docs/design.md, "Reads as of an instant"), with the same rules and the same read statements as the live
 * reads, not a second implementation of them:
 *
 * 1. the projections' tables exist fresh in the session's temporary schema (`freshTables`), shadowing the
 *    version's;
 * 2. inside one transaction (repeatable read: one snapshot of the log), they are brought to the instant
 *    (`replayUpTo`: the newest usable checkpoint loaded, the transaction made read-only, the events after it
 *    replayed as the projector applies them), those of the projections `options.reads` needs; a checkpoint
 *    dropped meanwhile by its maker: again from nothing;
 * 3. `read` runs on the same connection, and the transaction is rolled back whatever happened: the fresh
 *    tables are fresh again.
 *
 * The caller pins the read's clock to `at`. `client` must be a connection of its own (a transaction), bound
 * to the projection version (its search_path), on a primary: a hot standby refuses temporary tables.
 */
export async function readAsOf<T>(
  client: PoolClient,
  at: string,
  read: (db: RowQueryable) => Promise<T>,
  options: AsOfOptions = {},
): Promise<{ value: T; replay: AsOfReplay }> {
  const t = performance.now();
  const projections = projectionsFor(options.reads ?? [READS_ANYTHING]);
  const prepared = sessions.has(client);
  const session = await freshTables(client);
  const setup = performance.now() - t;
  try {
    let replay;
    for (let fromCheckpoint = options.checkpoints ?? true; ; fromCheckpoint = false) {
      await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ');
      try {
        replay = await replayUpTo(client, session, at, fromCheckpoint, true, projections);
        break;
      } catch (e) {
        await client.query('ROLLBACK').catch(() => undefined);
        // the version's checkpoints dropped meanwhile (a rebuild drops the previous version's, with it), or
        // the read chosen to end a lock cycle with that drop: read again from nothing. The maker's drops are
        // deletes: a read's snapshot still sees the checkpoint it chose
        const code = (e as { code?: string }).code;
        if (!(fromCheckpoint && (code === '42P01' || code === '40P01'))) throw e;
      }
    }
    try {
      const t2 = performance.now();
      // one connection: a read's statements sent at once (Promise.all) run one after another, in order
      let last: Promise<unknown> = Promise.resolve();
      const value = await read({
        query: <R>(sql: string, params?: unknown[]): Promise<R[]> => {
          const next = last.then(async () => (await client.query(sql, params)).rows as R[]);
          last = next.catch(() => undefined);
          return next;
        },
      });
      return {
        value,
        replay: {
          ...replay,
          freshMs: replay.freshMs + (prepared ? 0 : setup),
          readMs: performance.now() - t2,
        },
      };
    } finally {
      // on a failure too: the error that ended the read is the one reported
      await client.query('ROLLBACK').catch(() => undefined);
    }
  } finally {
    if (!options.keep) await dropFreshTables(client).catch(() => undefined);
  }
}

/** A checkpoint made: its instant, the events up to it, and what it took. */
export interface MadeCheckpoint {
  upto: string;
  events: number;
  ms: number;
}

/**
 * Makes the next checkpoint of the version `client` is bound to, when at least `every` events are stored after
 * the newest usable one (docs/design.md, "Reads as of an instant"), and drops those no longer usable (another
 * shape of tables; a late event stored since, up to its instant). The checkpoint's instant C is that of the
 * `every`-th event after the newest usable one, moved later while an event created after C is stored before
 * one created up to C in its partition (the replay from C would apply them in another order). Its rows are the
 * session's fresh tables brought to C as a read as of C brings them (`replayUpTo`), kept in the version's
 * checkpoint schema: a row, and each table's rows as one compressed value (no table per checkpoint: making
 * and dropping one changes no catalog, and takes no lock a read waits for). One maker at a time per version (an
 * advisory lock); returns null when none is due. The connection's fresh tables are dropped at the end (it reads
 * the version's tables again), or with `keep`, kept fresh and tidied for the next checkpoint: for a connection
 * used only for making them, as the projector's.
 */
export async function makeCheckpoint(
  client: PoolClient,
  every: number,
  options: { keep?: boolean } = {},
): Promise<MadeCheckpoint | null> {
  if (!Number.isInteger(every) || every < 1) throw new Error(`checkpoint every ${every} events: not a count`);
  const t = performance.now();
  const session = await freshTables(client);
  const version = await versionOf(client);
  const schema = checkpointSchema(version);
  await client.query('SELECT pg_advisory_lock(hashtext($1))', [schema]);
  try {
    await client.query(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
    await client.query(
      `CREATE TABLE IF NOT EXISTS ${schema}.checkpoints (
         id int PRIMARY KEY, upto timestamptz NOT NULL, events bigint NOT NULL, positions jsonb NOT NULL,
         shape text NOT NULL, made_at timestamptz NOT NULL DEFAULT now())`,
    );
    // a table's rows at the checkpoint: one value, the text of the array of its rows, compressed (lz4 where
    // the server has it: quicker to read back than Postgres's own)
    const rowsTable = (compression: string) =>
      `CREATE TABLE IF NOT EXISTS ${schema}.checkpoint_rows (
         id int NOT NULL REFERENCES ${schema}.checkpoints ON DELETE CASCADE, tbl text NOT NULL,
         rows text ${compression} NOT NULL, PRIMARY KEY (id, tbl))`;
    await client.query(rowsTable('COMPRESSION lz4')).catch(() => client.query(rowsTable('')));
    // no longer usable (another shape; newer than the newest usable): dropped
    const all = (
      await client.query<CheckpointRow & { shape: string }>(
        `SELECT id, upto, events::text AS events, shape FROM ${schema}.checkpoints ORDER BY upto DESC`,
      )
    ).rows;
    const mine = all.filter((k) => k.shape === session.shape);
    const stale = [
      ...all.filter((k) => k.shape !== session.shape),
      ...mine.slice(0, await newestUsable(client, version, mine)),
    ];
    if (stale.length > 0)
      await client.query(`DELETE FROM ${schema}.checkpoints WHERE id = ANY($1)`, [stale.map((k) => k.id)]);

    await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ');
    let committed = false;
    try {
      const [newest] = (
        await client.query<{ events: string }>(
          `SELECT events::text AS events FROM ${schema}.checkpoints ORDER BY upto DESC LIMIT 1`,
        )
      ).rows;
      const after = Number(newest?.events ?? 0);
      // the instant of the `every`-th event after it; not within the last minute of the log, where events of
      // another partition may still be arriving with earlier instants
      const [next] = (
        await client.query<{ c: Date }>(
          `SELECT created_at AS c FROM ${version}.event_log
            WHERE created_at <= (SELECT max(created_at) - interval '1 minute' FROM ${version}.event_log)
            ORDER BY created_at OFFSET $1 LIMIT 1`,
          [after + every - 1],
        )
      ).rows;
      if (!next) return null;
      let upto = next.c.toISOString();
      let positions: Positions | null = null;
      for (let tries = 0; tries < 5 && positions === null; tries++) {
        const { rows } = await client.query<{ p: string; end: string; late: Date | null }>(
          `WITH e AS (SELECT source_partition AS p, created_at,
                             CASE WHEN source_partition IS NULL THEN id ELSE source_offset END AS pos
                        FROM ${version}.event_log),
                ends AS (SELECT p, max(pos) AS end FROM e WHERE created_at <= $1::timestamptz GROUP BY p)
           SELECT COALESCE(ends.p::text, 'null') AS p, ends.end::text AS end,
                  (SELECT max(e.created_at) FROM e
                    WHERE e.p IS NOT DISTINCT FROM ends.p AND e.created_at > $1::timestamptz AND e.pos < ends.end) AS late
             FROM ends`,
          [upto],
        );
        const late = rows.map((r) => r.late).filter((d): d is Date => d !== null);
        if (late.length === 0) positions = Object.fromEntries(rows.map((r) => [r.p, r.end]));
        else upto = new Date(Math.max(...late.map((d) => d.getTime()))).toISOString();
      }
      if (positions === null) return null;
      // the replay is undone once its rows are read: the fresh tables stay fresh for the next checkpoint
      await client.query('SAVEPOINT replay');
      await replayUpTo(client, session, upto, true, false);
      const { rows: saved } = await client.query<{ tbl: string; rows: string }>(
        session.tables
          .filter((tb) => !NOT_KEPT.has(tb))
          .map(
            (tb) =>
              `SELECT '${tb}' AS tbl, array_agg(t)::text AS rows FROM pg_temp.${tb} t HAVING count(*) > 0`,
          )
          .join('\nUNION ALL '),
      );
      await client.query('ROLLBACK TO SAVEPOINT replay');
      const [{ n }] = (
        await client.query<{ n: string }>(
          `SELECT count(*)::text AS n FROM ${version}.event_log WHERE created_at <= $1::timestamptz`,
          [upto],
        )
      ).rows;
      const [{ id }] = (
        await client.query<{ id: number }>(`SELECT COALESCE(max(id), 0) + 1 AS id FROM ${schema}.checkpoints`)
      ).rows;
      await client.query(
        `INSERT INTO ${schema}.checkpoints (id, upto, events, positions, shape) VALUES ($1, $2, $3, $4, $5)`,
        [id, upto, n, JSON.stringify(positions), session.shape],
      );
      await client.query(
        `INSERT INTO ${schema}.checkpoint_rows (id, tbl, rows) SELECT $1, * FROM unnest($2::text[], $3::text[])`,
        [id, saved.map((r) => r.tbl), saved.map((r) => r.rows)],
      );
      await client.query('COMMIT');
      committed = true;
      return { upto, events: Number(n), ms: performance.now() - t };
    } finally {
      if (!committed) await client.query('ROLLBACK').catch(() => undefined);
    }
  } finally {
    await client.query('SELECT pg_advisory_unlock(hashtext($1))', [schema]).catch(() => undefined);
    // a tidy that fails leaves dead rows for the next one
    if (options.keep) await tidyAsOf(client).catch(() => undefined);
    else await dropFreshTables(client).catch(() => undefined);
  }
}

/** The storage a version's checkpoints take, in bytes, and how many there are. */
export async function checkpointStorage(client: PoolClient): Promise<{ checkpoints: number; bytes: number }> {
  const schema = checkpointSchema(await versionOf(client));
  const { rows } = await client.query<{ n: string; bytes: string }>(
    `SELECT (SELECT count(*) FROM pg_class c JOIN pg_namespace s ON s.oid = c.relnamespace
              WHERE s.nspname = $1 AND c.relname = 'checkpoints')::text AS n,
            COALESCE((SELECT sum(pg_total_relation_size(c.oid)) FROM pg_class c JOIN pg_namespace s ON s.oid = c.relnamespace
              WHERE s.nspname = $1 AND c.relkind = 'r'), 0)::text AS bytes`,
    [schema],
  );
  const count =
    rows[0].n === '0'
      ? 0
      : Number(
          (await client.query<{ n: string }>(`SELECT count(*)::text AS n FROM ${schema}.checkpoints`)).rows[0]
            .n,
        );
  return { checkpoints: count, bytes: Number(rows[0].bytes) };
}
