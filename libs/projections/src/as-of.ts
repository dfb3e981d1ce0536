import type { PoolClient } from 'pg';
import type { QueryRunner } from 'typeorm';
import { parseEvent } from '@flaglens/contract';
import type { RowQueryable } from '@flaglens/persistence';
import { applyProjections } from './apply-projections';
import { appendEvents } from './event-log/event-log.projection';
import { PROJECTIONS_MIGRATIONS } from './migrations';
import type { SourcedEvent } from './projection';
import { allProjections } from './registry';

/**
 * Events per replayed batch: the projector's largest group (docs/architecture.md, "Exactly once"), so no
 * statement of a projection meets a batch larger than the projector sends it.
 */
export const AS_OF_BATCH = 5000;

/** What a read as of an instant replayed, for logs and the bench. */
export interface AsOfReplay {
  /** events stored up to the instant, replayed */
  events: number;
  /** ms spent reading them from the event log */
  loadMs: number;
  /** ms spent making the fresh tables (the projections' migrations, run in the session's temp schema) */
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
  source_topic: string | null;
  source_partition: number | null;
  source_offset: string | null;
}

/**
 * Runs `read` as a flaglens fed only the events stored with `createdAt` at or before `at` would run it
 * (docs/design.md, "Reads as of an instant"), with the same rules and the same read statements as the live
 * reads, not a second implementation of them:
 *
 * 1. inside one transaction on `client` (repeatable read: one snapshot of the log), the events up to `at`
 *    are read from the version's event log, in the order the projector stored them per key;
 * 2. the projections' migrations (PROJECTIONS_MIGRATIONS, in the order a new version runs them) run in the
 *    session's temporary schema: every projection table, the event log's included, exists there fresh, with
 *    the seeds of a fresh installation; Postgres resolves an unqualified table name in `pg_temp` before any
 *    schema of the search path (also inside `identity_apply`, whose pinned path does not name `pg_temp`), so
 *    these tables shadow the version's for the rest of the transaction;
 * 3. the transaction is made read-only (Postgres still lets it write temporary tables): a write that would
 *    reach a table of the version, or of `public`, fails instead of happening;
 * 4. the events are replayed as the projector applies them: the event log first, then every projection of the
 *    registry, in batches of AS_OF_BATCH;
 * 5. `read` runs on the same connection (its statements as text: a statement prepared earlier on a pooled
 *    connection keeps the plan of the version's tables, so none is used here), and the transaction is rolled
 *    back whatever happened: nothing of it outlives the read.
 *
 * The caller pins the read's clock to `at`. `client` must be a connection of its own (a transaction), bound
 * to the projection version (its search_path), on a primary: a hot standby refuses temporary tables.
 */
export async function readAsOf<T>(
  client: PoolClient,
  at: string,
  read: (db: RowQueryable) => Promise<T>,
): Promise<{ value: T; replay: AsOfReplay }> {
  await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ');
  try {
    const t = performance.now();
    const { rows } = await client.query<LogRow>(
      // the projector's order per key: a key's events share a partition, stored in offset order; events
      // without a position (fed in code) in id order. Keys interleave freely (docs/design.md, "Determinism").
      `SELECT l.body, l.known_type, l.id::text AS id, l.source_topic, l.source_partition,
              l.source_offset::text AS source_offset
         FROM event_log l WHERE l.created_at <= $1::timestamptz
        ORDER BY l.source_partition NULLS FIRST, l.source_offset NULLS FIRST, l.id`,
      [at],
    );
    const [{ release_id, release }] = (
      await client.query<{ release_id: string | null; release: string | null }>(
        `SELECT (SELECT event_id::text FROM unleash_release) AS release_id,
                (SELECT release FROM unleash_release) AS release`,
      )
    ).rows;

    const t0 = performance.now();
    const [{ search_path }] = (await client.query<{ search_path: string }>('SHOW search_path')).rows;
    await client.query(`SET LOCAL search_path TO pg_temp, ${search_path}`);
    const runner = {
      query: async (sql: string, params?: unknown[]) => (await client.query(sql, params)).rows,
    } as unknown as QueryRunner;
    for (const m of PROJECTIONS_MIGRATIONS) await new m().up(runner);
    await client.query(`SET LOCAL search_path TO ${search_path}`);
    // plans kept by this session (a pooled connection's prepared statements, identity_apply's) were made
    // for the version's tables: planned again, they see the temporary ones
    await client.query('DISCARD PLANS');
    await client.query('SET LOCAL transaction_read_only = on');
    const t1 = performance.now();

    const events = rows.map((r): SourcedEvent => {
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
    });
    const projections = allProjections();
    for (let i = 0; i < events.length; i += AS_OF_BATCH) {
      const stored = await appendEvents(client, events.slice(i, i + AS_OF_BATCH));
      await applyProjections(client, stored, projections);
    }
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
        events: events.length,
        loadMs: t0 - t,
        freshMs: t1 - t0,
        replayMs: t2 - t1,
        readMs: performance.now() - t2,
      },
    };
  } finally {
    // on a failure too: the error that ended the read is the one reported
    await client.query('ROLLBACK').catch(() => undefined);
  }
}
