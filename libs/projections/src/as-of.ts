import { setImmediate as yieldToLoop } from 'node:timers/promises';
import { createHash } from 'node:crypto';
import type { PoolClient } from 'pg';
import type { QueryRunner } from 'typeorm';
import { parseEvent } from '@flaglens/contract';
import { assertSchemaName, type RowQueryable } from '@flaglens/persistence';
import { applyProjections } from './apply-projections';
import { appendEvents } from './event-log/event-log.projection';
import { PROJECTIONS_OWN_MIGRATIONS } from './migrations';
import { SEARCH_INDEXES } from './event-log/search-indexes';
import { READS_ANYTHING, type Reads } from './change-feed';
import type { Projection, SourcedEvent } from './projection';
import { allProjections, projectionsFor, tablesLeftOut } from './registry';

/**
 * Events per replayed batch: the projector's largest group (docs/architecture.md, "Exactly once"), so no
 * statement of a projection meets a batch larger than the projector sends it.
 */
export const AS_OF_BATCH = 5000;
/**
 * Events between two checkpoints while the maker is far behind the log (`makeCheckpoint`'s `catchUp`): one
 * replayed batch.
 */
export const AS_OF_CATCH_UP = AS_OF_BATCH;
/** Events parsed between two turns of the event loop while replaying (a few milliseconds of work). */
export const AS_OF_PARSE_SLICE = 250;

/**
 * Tables a checkpoint does not keep: the event log (a read from a checkpoint sees the version's own log up to
 * the checkpoint's instant, then the replayed events) and the log's counts, which no read as of an instant reads
 * (the search as of an instant counts the log itself; the log's days are read by the checkpoints' checks, of the
 * version's log): a replay does not write them (`appendEvents` with `counts: false`).
 */
const NOT_KEPT = new Set(['event_log', 'event_counts', 'event_search_counts', 'event_log_days']);

/** A maker's replay from the checkpoint its tables hold met an event out of the projector's order. */
class ReplayOutOfOrder extends Error {
  constructor() {
    super('an event stored out of order since the checkpoint its tables hold');
  }
}

/** The table of a version's checkpoint schema holding each checkpoint's rows, or its changes to its base's. */
const CHANGES = 'checkpoint_changes';

/**
 * A read as of an instant that would replay more events than its bound (`AsOfOptions.maxReplay`): the nearest
 * usable checkpoint before the instant (`from`, null: none) is too far from it, as while the checkpoints are
 * still being made after a backfill. Refused before any replay.
 */
export class AsOfTooFar extends Error {
  constructor(
    readonly at: string,
    readonly events: number,
    readonly limit: number,
    readonly from: string | null,
  ) {
    super(
      `as of ${at} the read would replay ${events} events ${from ? `from the checkpoint of ${from}` : 'from the first'}` +
        `, more than the ${limit} it may (AS_OF_MAX_REPLAY_EVENTS): checkpoints nearer to it are not made yet`,
    );
  }
}

/** What a read as of an instant replayed, for logs and the bench. */
export interface AsOfReplay {
  /** events replayed: those stored up to the instant, or those after the checkpoint used */
  events: number;
  /** the checkpoint the replay started from (its instant), if one was used */
  checkpoint: string | null;
  /** no event stored after the instant: read from the version's own tables, nothing replayed (`liveUpTo`) */
  live: boolean;
  /** the checkpoints of changes loaded on top of the full one they amend (0: a full checkpoint, or none) */
  amends: number;
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
  /** the full checkpoint its rows build on: itself, or an earlier one whose rows the changes after it amend */
  base: number;
}

/**
 * Where the events up to a checkpoint's instant end in the replay's order, per partition (`null`: the events
 * without a position, ordered by id): the highest offset (id) among them.
 */
type Positions = Record<string, string>;

/** The fresh tables a session keeps, per connection (`keep: true`). */
interface Session {
  /** the projection tables in pg_temp, but the log's, in name order */
  tables: string[];
  /** the tables' names, columns and types: a checkpoint made of other tables is not used */
  shape: string;
  /** the tables with rows when fresh (the seeds of a new installation): every other one is empty then */
  seeded: string[];
  /** the kept tables' changes are captured while `flaglens.as_of_capture` is on (a maker's session) */
  capture: boolean;
  /**
   * the settings that decide a row's text (time zone, date and interval styles, float digits, bytea): a
   * checkpoint's changes are compared with the rows before them by their text, so a maker keeps only the
   * checkpoints made under its own
   */
  render: string;
  /**
   * a maker's session: what its tables hold, committed: the rows of no event (fresh), or of the checkpoint it
   * made last (its id), on which the next one's events are replayed without loading anything
   */
  holds: 'fresh' | number;
  /** a maker's session: checkpoints made since its tables were last tidied */
  untidy: number;
}

/** A maker tidies its kept tables every this many checkpoints: a vacuum costs about as much as a replay. */
const MAKER_TIDY_EVERY = 16;

/** The table a maker's session captures its replays' row changes in (`captureChanges`). */
const CAPTURED = 'as_of_captured';

/**
 * A maker's fresh tables record what a replay changes in them: each row written (+1) and each row replaced or
 * deleted (-1), as its text, in `pg_temp.as_of_captured`, while the transaction's `flaglens.as_of_capture` is
 * on (not while a checkpoint's rows are loaded). The sum per row text is the replay's net change: what a
 * checkpoint after the one loaded adds and removes.
 */
async function captureChanges(client: PoolClient, tables: readonly string[]): Promise<void> {
  await client.query(
    [
      `CREATE TEMP TABLE ${CAPTURED} (tbl text NOT NULL, sign int NOT NULL, r text NOT NULL)`,
      `CREATE FUNCTION pg_temp.as_of_capture() RETURNS trigger LANGUAGE plpgsql AS $$
       BEGIN
         IF TG_OP <> 'INSERT' THEN INSERT INTO pg_temp.${CAPTURED} VALUES (TG_TABLE_NAME, -1, OLD::text); END IF;
         IF TG_OP <> 'DELETE' THEN INSERT INTO pg_temp.${CAPTURED} VALUES (TG_TABLE_NAME, 1, NEW::text); END IF;
         RETURN NULL;
       END $$`,
      ...tables.map(
        (t) =>
          `CREATE TRIGGER as_of_capture AFTER INSERT OR UPDATE OR DELETE ON pg_temp.${t} FOR EACH ROW
             WHEN (current_setting('flaglens.as_of_capture', true) = 'on') EXECUTE FUNCTION pg_temp.as_of_capture()`,
      ),
    ].join(';\n'),
  );
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
async function freshTables(client: PoolClient, capture = false): Promise<Session> {
  const known = sessions.get(client);
  if (known && known.capture === capture) return known;
  if (known) await dropFreshTables(client);
  const [{ search_path }] = (await client.query<{ search_path: string }>('SHOW search_path')).rows;
  await client.query('BEGIN');
  try {
    await client.query(`SET LOCAL search_path TO pg_temp, ${search_path}`);
    const runner = {
      query: async (sql: string, params?: unknown[]) => (await client.query(sql, params)).rows,
    } as unknown as QueryRunner;
    for (const m of PROJECTIONS_OWN_MIGRATIONS) await new m().up(runner);
    // the replayed events' search indexes: no projection reads them, and a trigram index costs every event
    // replayed most of its storing
    for (const index of SEARCH_INDEXES) await client.query(`DROP INDEX pg_temp.${index}`);
    const { rows } = await client.query<{ t: string; cols: string }>(
      `SELECT c.relname AS t, string_agg(a.attname || ' ' || format_type(a.atttypid, a.atttypmod), ', '
                                         ORDER BY a.attnum) AS cols
         FROM pg_class c JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
        WHERE c.relnamespace = pg_my_temp_schema() AND c.relkind = 'r' AND c.relname <> '${CAPTURED}'
        GROUP BY c.relname ORDER BY c.relname`,
    );
    const tables = rows.map((r) => r.t).filter((t) => t !== 'event_log');
    if (capture)
      await captureChanges(
        client,
        tables.filter((t) => !NOT_KEPT.has(t)),
      );
    const [{ render }] = (
      await client.query<{ render: string }>(
        `SELECT concat_ws('|', current_setting('TimeZone'), current_setting('DateStyle'),
                current_setting('IntervalStyle'), current_setting('extra_float_digits'),
                current_setting('bytea_output')) AS render`,
      )
    ).rows;
    const seeded = await client.query<{ t: string }>(
      tables.map((t) => `SELECT '${t}' AS t WHERE EXISTS (SELECT 1 FROM pg_temp.${t})`).join('\nUNION ALL '),
    );
    await client.query('COMMIT');
    const kept = rows.filter((r) => !NOT_KEPT.has(r.t));
    const session: Session = {
      tables,
      capture,
      render,
      holds: 'fresh',
      untidy: 0,
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
  // every table of the session's temporary schema: a maker's keeps its replayed log under another name
  const { rows } = await client.query<{ t: string }>(
    `SELECT relname AS t FROM pg_class WHERE relnamespace = pg_my_temp_schema() AND relkind = 'r' ORDER BY 1`,
  );
  if (rows.length > 0) await client.query(`VACUUM ${rows.map((r) => `pg_temp.${r.t}`).join(', ')}`);
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
      `${schema}.${CHANGES}`,
    ])
  ).rows;
  if (!exists) return null;
  const candidates = (limit: string) =>
    client.query<CheckpointRow>(
      `SELECT k.id, k.upto, k.events::text AS events, k.positions, k.base FROM ${schema}.checkpoints k
        WHERE k.shape = $1 AND k.upto <= $2::timestamptz ORDER BY k.upto DESC ${limit}`,
      [shape, at],
    );
  // the newest is usable unless a late event was stored since the maker's last look: the others read only then
  const [newest] = (await candidates('LIMIT 1')).rows;
  if (!newest || (await eventsUpTo(client, version, newest.upto)) === newest.events) return newest ?? null;
  const { rows } = await candidates('');
  return rows[await newestUsable(client, version, rows)] ?? null;
}

/**
 * How many events the version's log holds with `created_at` at or before `upto` (as text): the days before its
 * UTC day summed from `event_log_days`, the events of its day counted. A few rows and one day's events,
 * whatever the log's size.
 */
async function eventsUpTo(client: PoolClient, version: string, upto: Date | string): Promise<string> {
  const { rows } = await client.query<{ n: string }>(
    `SELECT ((SELECT COALESCE(sum(n), 0) FROM ${version}.event_log_days
               WHERE day < ($1::timestamptz AT TIME ZONE 'UTC')::date)
           + (SELECT count(*) FROM ${version}.event_log
               WHERE created_at >= (($1::timestamptz AT TIME ZONE 'UTC')::date)::timestamp AT TIME ZONE 'UTC'
                 AND created_at <= $1::timestamptz))::text AS n`,
    [upto],
  );
  return rows[0].n;
}

/**
 * The index of the newest usable checkpoint of `rows` (newest first; rows.length: none). A late event makes
 * every checkpoint from its instant on unusable and none before it, so it is found by halves: a few counts
 * of the log's events up to an instant (`eventsUpTo`).
 */
async function newestUsable(
  client: PoolClient,
  version: string,
  rows: readonly Pick<CheckpointRow, 'upto' | 'events'>[],
): Promise<number> {
  const usable = async (k: Pick<CheckpointRow, 'upto' | 'events'>) =>
    (await eventsUpTo(client, version, k.upto)) === k.events;
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
  holding?: CheckpointRow | null,
  maxReplay?: number,
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
  // `holding` (a maker's session): the tables hold that checkpoint's rows already, or none (fresh)
  let checkpoint =
    holding !== undefined
      ? holding
      : useCheckpoints
        ? await usableCheckpoint(client, version, session.shape, at)
        : null;
  if (maxReplay !== undefined) {
    // counted from the log's days (a sum, and one day's rows), never by walking the events to replay; before
    // the order check below, which reads every event between the checkpoint and the instant: a read far from
    // any checkpoint is refused at once (from the start, without the checkpoint, it would replay more still)
    const events = Number(await eventsUpTo(client, version, at)) - Number(checkpoint?.events ?? 0);
    if (events > maxReplay)
      throw new AsOfTooFar(
        at,
        events,
        maxReplay,
        checkpoint ? new Date(checkpoint.upto).toISOString() : null,
      );
  }
  if (checkpoint) {
    // each event after it must come after the checkpoint's events of its partition in the replay's order; one
    // that does not (stored out of order since) is replayed with the rest from the start. Checked in Postgres:
    // the events are read in batches below, never all at once
    const [{ outOfOrder }] = (
      await client.query<{ outOfOrder: boolean }>(
        `SELECT EXISTS (SELECT 1 FROM ${version}.event_log l
                 WHERE l.created_at > $1::timestamptz AND l.created_at <= $2::timestamptz
                   AND (CASE WHEN l.source_partition IS NULL THEN l.id ELSE l.source_offset END)
                       <= ($3::jsonb ->> COALESCE(l.source_partition::text, 'null'))::bigint) AS "outOfOrder"`,
        [checkpoint.upto, at, JSON.stringify(checkpoint.positions)],
      )
    ).rows;
    if (outOfOrder && holding) throw new ReplayOutOfOrder();
    if (outOfOrder) {
      checkpoint = null;
      const events = Number(await eventsUpTo(client, version, at));
      if (maxReplay !== undefined && events > maxReplay) throw new AsOfTooFar(at, events, maxReplay, null);
    }
  }
  // the events to replay, read AS_OF_BATCH at a time through a cursor of the transaction: a replay of millions
  // (an instant far from any checkpoint) holds one batch in memory
  await client.query(
    checkpoint
      ? {
          text: `DECLARE flaglens_as_of NO SCROLL CURSOR FOR SELECT ${columns} FROM ${version}.event_log l
                  WHERE l.created_at > $1::timestamptz AND l.created_at <= $2::timestamptz ${order}`,
          values: [checkpoint.upto, at],
        }
      : {
          text: `DECLARE flaglens_as_of NO SCROLL CURSOR FOR SELECT ${columns} FROM ${version}.event_log l
                  WHERE l.created_at <= $1::timestamptz ${order}`,
          values: [at],
        },
  );
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
  if (checkpoint && holding) {
    // the rows are there: the log seen is the version's up to the instant, the events replayed before emptied
    // (nothing reads them; kept, they would grow with the log)
    const [{ kind }] = (
      await client.query<{ kind: string }>(
        `SELECT relkind::text AS kind FROM pg_class WHERE relnamespace = pg_my_temp_schema() AND relname = 'event_log'`,
      )
    ).rows;
    await client.query(
      [
        kind === 'r'
          ? `ALTER TABLE pg_temp.event_log RENAME TO event_log_replayed`
          : `DELETE FROM pg_temp.event_log_replayed`,
        `CREATE OR REPLACE TEMP VIEW event_log AS
           SELECT * FROM ${version}.event_log WHERE created_at <= '${new Date(at).toISOString()}'::timestamptz`,
      ].join(';\n'),
    );
    log = 'event_log_replayed';
  } else if (checkpoint) {
    const schema = checkpointSchema(version);
    const kept = new Set(session.tables.filter((tb) => !NOT_KEPT.has(tb)));
    const id = Number(checkpoint.id);
    const base = Number(checkpoint.base);
    const { rows: has } = await client.query<{ tbl: string }>(
      `SELECT DISTINCT tbl FROM ${schema}.${CHANGES} WHERE id BETWEEN $1 AND $2 ORDER BY tbl`,
      [base, id],
    );
    const unknown = has.find((r) => !kept.has(r.tbl));
    if (unknown) throw new Error(`checkpoint ${id} holds rows of ${unknown.tbl}, not a table it keeps`);
    const used = (tb: string) => !unused.has(tb);
    // one round trip: the fresh rows out (only the seeded tables have any: each read is rolled back), the
    // checkpoint's in: the rows of its full base, with the rows each checkpoint after it up to this one added and
    // without those it removed (each table's rows of a checkpoint are one value, the text of an array of the
    // rows' texts, as the maker's session wrote them; a row is compared by its text, as often as it occurs). The log is the
    // version's up to the instant (the replayed events are written to the fresh log, renamed, which nothing
    // reads): read as one table, the reads get the version's plans (Postgres plans a union whose branch has a
    // filter far worse). While applying, a projection reads of the log only its earliest instant (projects: is
    // this the log's first event?), which no event after the checkpoint changes; the property tests
    // (as-of.int-spec.ts) compare every read from a checkpoint with a fresh flaglens, so one that read more of
    // it would fail them.
    const upto = new Date(at).toISOString();
    const rowsOf = (tb: string, column: 'added' | 'removed') =>
      `SELECT unnest(c.${column}::text[]) AS r FROM ${schema}.${CHANGES} c
        WHERE c.id BETWEEN ${base} AND ${id} AND c.tbl = '${tb}' AND c.${column} IS NOT NULL`;
    await client.query(
      [
        ...session.seeded.filter(used).map((tb) => `DELETE FROM pg_temp.${tb}`),
        ...has
          .filter((r) => used(r.tbl))
          .map(({ tbl: tb }) =>
            base === id
              ? `INSERT INTO pg_temp.${tb} SELECT * FROM unnest((SELECT c.added FROM ${schema}.${CHANGES} c
                  WHERE c.id = ${id} AND c.tbl = '${tb}')::text[]::pg_temp.${tb}[])`
              : `INSERT INTO pg_temp.${tb} SELECT * FROM unnest((SELECT array_agg(s.r)::pg_temp.${tb}[] FROM
                  (${rowsOf(tb, 'added')} EXCEPT ALL ${rowsOf(tb, 'removed')}) s))`,
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
  // a maker's session: what the replay changes is captured from here on (the rows loaded above are not)
  if (session.capture) await client.query(`SET LOCAL flaglens.as_of_capture = on`);
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
  let replayed = 0;
  for (;;) {
    const { rows } = await client.query<LogRow>(`FETCH ${AS_OF_BATCH} FROM flaglens_as_of`);
    if (rows.length === 0) break;
    replayed += rows.length;
    // parsed a slice at a time, with a turn of the event loop in between: a long replay in the api must not
    // hold its probes and other requests back (docs/performance-reads.md)
    const batch: SourcedEvent[] = [];
    for (let j = 0; j < rows.length; j += AS_OF_PARSE_SLICE) {
      if (j > 0) await yieldToLoop();
      for (const r of rows.slice(j, j + AS_OF_PARSE_SLICE)) batch.push(sourced(r));
    }
    const stored = await appendEvents(client, batch, log, { counts: false });
    await applyProjections(client, stored, projections);
    if (rows.length < AS_OF_BATCH) break;
  }
  await client.query('CLOSE flaglens_as_of');
  return {
    events: replayed,
    checkpoint: checkpoint ? checkpoint.upto.toISOString() : null,
    live: false,
    amends: checkpoint ? Number(checkpoint.id) - Number(checkpoint.base) : 0,
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
  /** Refuse (`AsOfTooFar`) a read that would replay more events than this from its checkpoint. */
  maxReplay?: number;
  /**
   * Read from the version's own tables when no stored event is created after the instant (default); false:
   * replay even then (the tests compare both).
   */
  live?: boolean;
}

/**
 * When no event stored is created after `at` (in the transaction's snapshot), a flaglens fed the events up to
 * `at` is fed every stored event, in the order the projector applied them, by the same rules: its tables are
 * the version's own, as of the transaction's snapshot (docs/design.md, "Reads as of an instant"). Then the
 * transaction reads those, made read-only, with the session's fresh tables searched last (`pg_temp` named at
 * the end of its search_path, for the transaction alone; Postgres parses a prepared statement again when the
 * search_path it was parsed under changes), and nothing is replayed: null when an event after `at` is stored.
 * One probe of the log's time index.
 */
async function liveUpTo(client: PoolClient, at: string): Promise<Omit<AsOfReplay, 'readMs'> | null> {
  const t = performance.now();
  const version = await versionOf(client);
  const [{ after, path }] = (
    await client.query<{ after: boolean; path: string }>(
      `SELECT EXISTS (SELECT 1 FROM ${version}.event_log WHERE created_at > $1::timestamptz) AS after,
              current_setting('search_path') AS path`,
      [at],
    )
  ).rows;
  if (after) return null;
  await client.query(`SELECT set_config('search_path', $1, true)`, [`${path}, pg_temp`]);
  await client.query('SET LOCAL transaction_read_only = on');
  return {
    events: 0,
    checkpoint: null,
    live: true,
    amends: 0,
    loadMs: performance.now() - t,
    freshMs: 0,
    replayMs: 0,
  };
}

/**
 * Runs `read` as a flaglens fed only the events stored with `createdAt` at or before `at` would run it
 * (docs/design.md, "Reads as of an instant"), with the same rules and the same read statements as the live
 * reads, not a second implementation of them:
 *
 * 1. the projections' tables exist fresh in the session's temporary schema (`freshTables`), shadowing the
 *    version's;
 * 2. inside one transaction (repeatable read: one snapshot of the log), when no event stored is created after
 *    the instant, the version's own tables are read (`liveUpTo`); otherwise the fresh ones are brought to the
 *    instant (`replayUpTo`: the newest usable checkpoint loaded, the transaction made read-only, the events
 *    after it replayed as the projector applies them), those of the projections `options.reads` needs; a
 *    checkpoint dropped meanwhile by its maker: again from nothing;
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
        replay = options.live === false ? null : await liveUpTo(client, at);
        replay ??= await replayUpTo(
          client,
          session,
          at,
          fromCheckpoint,
          true,
          projections,
          undefined,
          options.maxReplay,
        );
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
 * `every`-th event after the newest usable one (the `catchUp`-th, AS_OF_CATCH_UP by default, while more than
 * twice that many are stored after it), moved later while an event created after C is stored before
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
  options: { keep?: boolean; catchUp?: number } = {},
): Promise<MadeCheckpoint | null> {
  if (!Number.isInteger(every) || every < 1) throw new Error(`checkpoint every ${every} events: not a count`);
  const catchUp = Math.max(every, options.catchUp ?? AS_OF_CATCH_UP);
  if (!Number.isInteger(catchUp)) throw new Error(`catching up ${catchUp} events at a time: not a count`);
  const t = performance.now();
  let session = await freshTables(client, true);
  let outOfOrder = false;
  const version = await versionOf(client);
  const schema = checkpointSchema(version);
  await client.query('SELECT pg_advisory_lock(hashtext($1))', [schema]);
  try {
    await client.query(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
    // checkpoints kept whole each (an earlier release's `checkpoint_rows`): derived data, made again as changes
    await client.query(
      `DO $$ BEGIN IF to_regclass('${schema}.checkpoint_rows') IS NOT NULL THEN
         DROP TABLE ${schema}.checkpoint_rows, ${schema}.checkpoints; END IF; END $$`,
    );
    // `base`: the full checkpoint a checkpoint's changes amend (itself when it is full); `bytes`: the text of
    // its rows or changes, uncompressed
    await client.query(
      `CREATE TABLE IF NOT EXISTS ${schema}.checkpoints (
         id int PRIMARY KEY, upto timestamptz NOT NULL, events bigint NOT NULL, positions jsonb NOT NULL,
         shape text NOT NULL, render text NOT NULL, base int NOT NULL, bytes bigint NOT NULL,
         made_at timestamptz NOT NULL DEFAULT now())`,
    );
    await client.query(`CREATE INDEX IF NOT EXISTS checkpoints_upto_idx ON ${schema}.checkpoints (upto)`);
    // a table's rows at a full checkpoint (`added`), or the rows a checkpoint adds to and removes from those of
    // the one before it: each one value, the text of the array of the rows, compressed (lz4 where the server has
    // it: quicker to read back than Postgres's own)
    const changesTable = (compression: string) =>
      `CREATE TABLE IF NOT EXISTS ${schema}.${CHANGES} (
         id int NOT NULL REFERENCES ${schema}.checkpoints ON DELETE CASCADE, tbl text NOT NULL,
         added text ${compression} NULL, removed text ${compression} NULL, PRIMARY KEY (id, tbl))`;
    await client.query(changesTable('COMPRESSION lz4')).catch(() => client.query(changesTable('')));
    // no longer usable: made of other tables, or where rows read otherwise; newer than the newest usable (a late
    // event stored since, up to their instant: usually none, so the newest is checked alone first)
    await client.query(`DELETE FROM ${schema}.checkpoints WHERE shape <> $1 OR render <> $2`, [
      session.shape,
      session.render,
    ]);
    const newestOf = async () =>
      (
        await client.query<CheckpointRow>(
          `SELECT id, upto, events::text AS events, positions, base FROM ${schema}.checkpoints
            ORDER BY upto DESC LIMIT 1`,
        )
      ).rows[0];
    let newest = await newestOf();
    if (newest && (await eventsUpTo(client, version, newest.upto)) !== newest.events) {
      const all = (
        await client.query<CheckpointRow>(
          `SELECT id, upto, events::text AS events FROM ${schema}.checkpoints ORDER BY upto DESC`,
        )
      ).rows;
      const stale = all.slice(0, await newestUsable(client, version, all));
      await client.query(`DELETE FROM ${schema}.checkpoints WHERE id = ANY($1)`, [stale.map((k) => k.id)]);
      newest = await newestOf();
    }
    // the session's tables hold the newest checkpoint's rows (made last here), or none is made yet and they are
    // fresh: the replay goes on from them. Otherwise they start fresh, and the newest is loaded
    const holding = newest ? session.holds === Number(newest.id) : session.holds === 'fresh';
    if (!holding && session.holds !== 'fresh') {
      await dropFreshTables(client);
      session = await freshTables(client, true);
    }

    await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ');
    let committed = false;
    try {
      const after = newest?.upto ?? null;
      // behind by more than twice `catchUp` events (a backfill, a rebuild's new version): the next one `catchUp`
      // events on, so the past is covered faster (fewer statements per event), its reads replaying at most that many
      const [{ stored }] = (
        await client.query<{ stored: string }>(
          `SELECT COALESCE(sum(n), 0)::text AS stored FROM ${version}.event_log_days`,
        )
      ).rows;
      const step = Number(stored) - Number(newest?.events ?? 0) > 2 * catchUp ? catchUp : every;
      // the instant of the `step`-th event after it; not within the last minute of the log, where events of
      // another partition may still be arriving with earlier instants
      const [next] = (
        await client.query<{ c: Date }>(
          `SELECT created_at AS c FROM ${version}.event_log
            WHERE created_at > COALESCE($2::timestamptz, '-infinity')
              AND created_at <= (SELECT max(created_at) - interval '1 minute' FROM ${version}.event_log)
            ORDER BY created_at OFFSET $1 LIMIT 1`,
          [step - 1, after],
        )
      ).rows;
      if (!next) return null;
      let upto = next.c.toISOString();
      let positions: Positions | null = null;
      for (let tries = 0; tries < 5 && positions === null; tries++) {
        const ends = await positionsUpTo(client, version, after, newest?.positions ?? {}, upto);
        const late = await lateAfter(client, version, newest?.positions ?? {}, ends, upto);
        if (late === null) positions = ends;
        else upto = late.toISOString();
      }
      if (positions === null) return null;
      // the replay is kept: the tables hold this checkpoint's rows for the next one
      const replay = await replayUpTo(
        client,
        session,
        upto,
        true,
        false,
        allProjections(),
        holding ? (newest ?? null) : undefined,
      );
      const kept = session.tables.filter((tb) => !NOT_KEPT.has(tb));
      const n = await eventsUpTo(client, version, upto);
      const [{ id }] = (
        await client.query<{ id: number }>(`SELECT COALESCE(max(id), 0) + 1 AS id FROM ${schema}.checkpoints`)
      ).rows;
      await client.query(
        `INSERT INTO ${schema}.checkpoints (id, upto, events, positions, shape, render, base, bytes)
         VALUES ($1, $2, $3, $4, $5, $6, $1, 0)`,
        [id, upto, n, JSON.stringify(positions), session.shape, session.render],
      );
      // the rows go from the session's tables to the checkpoint's in Postgres: a whole checkpoint's text can be far
      // larger than the process's heap
      const bytes = async () =>
        Number(
          (
            await client.query<{ bytes: string }>(
              `SELECT COALESCE(sum(length(added) + COALESCE(length(removed), 0)), 0)::text AS bytes
                 FROM ${schema}.${CHANGES} WHERE id = $1`,
              [id],
            )
          ).rows[0].bytes,
        );
      // what the replay changed from the newest checkpoint, if it started from it; the rows whole otherwise
      let whole = !(newest !== undefined && replay.checkpoint === newest.upto.toISOString());
      if (!whole && newest) {
        await client.query(
          `INSERT INTO ${schema}.${CHANGES} (id, tbl, added, removed) ${capturedChanges(id, kept)}`,
        );
        // the changes since the newest whole checkpoint, these included, no larger than its rows: the next read
        // loads at most twice a whole checkpoint, and the changes pay for each whole one
        const [{ since, full }] = (
          await client.query<{ since: string; full: string }>(
            `SELECT (SELECT COALESCE(sum(bytes), 0) FROM ${schema}.checkpoints WHERE id > $1)::text AS since,
                    (SELECT bytes FROM ${schema}.checkpoints WHERE id = $1)::text AS full`,
            [newest.base],
          )
        ).rows;
        const changed = await bytes();
        if (Number(since) + changed <= Number(full))
          await client.query(`UPDATE ${schema}.checkpoints SET base = $2, bytes = $3 WHERE id = $1`, [
            id,
            newest.base,
            changed,
          ]);
        else {
          await client.query(`DELETE FROM ${schema}.${CHANGES} WHERE id = $1`, [id]);
          whole = true;
        }
      }
      if (whole) {
        await client.query(
          `INSERT INTO ${schema}.${CHANGES} (id, tbl, added, removed) ${kept
            .map(
              (tb) =>
                `SELECT ${Number(id)}, '${tb}', array_agg(t::text)::text, NULL::text FROM pg_temp.${tb} t
                 HAVING count(*) > 0`,
            )
            .join('\nUNION ALL ')}`,
        );
        await client.query(`UPDATE ${schema}.checkpoints SET bytes = $2 WHERE id = $1`, [id, await bytes()]);
      }
      await client.query(`DELETE FROM pg_temp.${CAPTURED}`);
      await client.query('COMMIT');
      committed = true;
      session.holds = id;
      return { upto, events: Number(n), ms: performance.now() - t };
    } catch (e) {
      if (!(e instanceof ReplayOutOfOrder)) throw e;
      outOfOrder = true;
    } finally {
      if (!committed) await client.query('ROLLBACK').catch(() => undefined);
    }
  } finally {
    await client.query('SELECT pg_advisory_unlock(hashtext($1))', [schema]).catch(() => undefined);
    // a tidy that fails leaves dead rows for the next one
    if (!options.keep || outOfOrder) await dropFreshTables(client).catch(() => undefined);
    else if (++session.untidy >= MAKER_TIDY_EVERY) {
      session.untidy = 0;
      await tidyAsOf(client).catch(() => undefined);
    }
  }
  // an event out of order after the checkpoint its tables held: made again from fresh tables (the newest loaded,
  // or every event replayed)
  return outOfOrder ? makeCheckpoint(client, every, options) : null;
}

/**
 * The SELECT of the net changes a maker's replay captured (`captureChanges`) as checkpoint `id`'s, per kept
 * table: the rows written more often than replaced or deleted (`added`), and the reverse (`removed`), each as
 * often as the difference, as the text of an array of the rows' texts.
 */
function capturedChanges(id: number, kept: readonly string[]): string {
  return `SELECT ${Number(id)}, tbl, (array_agg(r) FILTER (WHERE n > 0))::text,
                 (array_agg(r) FILTER (WHERE n < 0))::text
            FROM (SELECT tbl, r, sum(sign) AS n FROM pg_temp.${CAPTURED} GROUP BY tbl, r HAVING sum(sign) <> 0) net,
                 generate_series(1, abs(n))
           WHERE tbl IN (${kept.map((t) => `'${t}'`).join(', ')})
           GROUP BY tbl`;
}

const positionSql = `CASE WHEN source_partition IS NULL THEN id ELSE source_offset END`;
const partitionIs = (p: string): string =>
  p === 'null' ? 'source_partition IS NULL' : `source_partition = ${BigInt(p).toString()}`;

/**
 * Where the events up to `upto` end per partition (`Positions`), from those up to the previous checkpoint's
 * instant `after` (`before`) and the events created in (`after`, `upto`]: only those are read.
 */
async function positionsUpTo(
  client: PoolClient,
  version: string,
  after: Date | null,
  before: Positions,
  upto: string,
): Promise<Positions> {
  const { rows } = await client.query<{ p: string; end: string }>(
    `SELECT COALESCE(source_partition::text, 'null') AS p, max(${positionSql})::text AS end
       FROM ${version}.event_log
      WHERE created_at > COALESCE($1::timestamptz, '-infinity') AND created_at <= $2::timestamptz
      GROUP BY source_partition`,
    [after, upto],
  );
  const ends: Positions = { ...before };
  for (const r of rows) if (ends[r.p] === undefined || BigInt(r.end) > BigInt(ends[r.p])) ends[r.p] = r.end;
  return ends;
}

/**
 * The latest instant of an event created after `upto` but stored before the end of its partition's events up
 * to it (`ends`): one the replay from `upto` would apply in another order than the projector did. Only the
 * positions from the previous checkpoint's end (`before`) are read: an event before it was checked when that
 * checkpoint was made, and one stored since comes after every event then stored, so after that end. None: null.
 */
async function lateAfter(
  client: PoolClient,
  version: string,
  before: Positions,
  ends: Positions,
  upto: string,
): Promise<Date | null> {
  const parts = Object.keys(ends);
  if (parts.length === 0) return null;
  const { rows } = await client.query<{ late: Date | null }>(
    `SELECT max(late) AS late FROM (${parts
      .map(
        (p) =>
          // the instant filtered in the aggregate, not in WHERE: the positions' range alone is read, from
          // `event_log_position_at_idx` only (an index of the instants would visit every later event)
          `SELECT max(created_at) FILTER (WHERE created_at > $1::timestamptz) AS late FROM ${version}.event_log
            WHERE ${partitionIs(p)} AND ${positionSql} < ${BigInt(ends[p]).toString()}
              ${before[p] === undefined ? '' : `AND ${positionSql} >= ${BigInt(before[p]).toString()}`}`,
      )
      .join('\n UNION ALL ')}) l`,
    [upto],
  );
  return rows[0].late;
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
