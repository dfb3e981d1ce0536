import type { PoolClient, QueryResult } from 'pg';
import { assertSchemaName, type Database, VERSION_SWITCH_LOCK } from '@flaglens/persistence';

/** Another consumer moved this partition's stored position: we no longer own it (or we are stale). */
export class OffsetConflictError extends Error {
  constructor(
    readonly topic: string,
    readonly partition: number,
    readonly expected: number,
  ) {
    super(`stored position of ${topic}[${partition}] is no longer ${expected}: partition lost or moved`);
    this.name = 'OffsetConflictError';
  }
}

/**
 * Which projection version a projector writes: the active one (the live projector; it follows a switch
 * made by a rebuild), or one fixed version (a rebuild building a new one).
 */
export type ProjectionTarget = { kind: 'active' } | { kind: 'version'; schema: string };

export class NoActiveVersionError extends Error {
  constructor() {
    super('there is no active projection version: run `npm run migrate`');
  }
}

/** A partition's stored position moving from `expectedOffset` to `nextOffset` (docs/design.md#exactly-once-effect). */
export interface PositionMove {
  topic: string;
  partition: number;
  expectedOffset: number;
  nextOffset: number;
  /** the newest `createdAt` of the events the batch stored, if any */
  lastEventAt: string | null;
}

/**
 * Transactions on the target projection version, and the stored positions they guard: a batch's writes and its
 * partition's `next_offset` commit together, and the position moves only from the value the consumer expects,
 * so a consumer that lost the partition cannot write (docs/architecture.md, "Exactly once").
 */
export class BatchTransactions {
  constructor(
    private readonly db: Database,
    private readonly groupId: string,
    private readonly target: ProjectionTarget = { kind: 'active' },
  ) {}

  /**
   * Begins the transaction and points it at the target version, in one round trip. For the active version,
   * the switch lock is taken shared first, so a rebuild's switch waits for batches in flight; the version is
   * then read with a snapshot taken after the lock, so the next batch sees a switch that committed meanwhile.
   */
  async begin(c: PoolClient): Promise<string> {
    if (this.target.kind === 'version') {
      const schema = assertSchemaName(this.target.schema);
      await c.query(`BEGIN; SET LOCAL search_path TO ${schema}, public`);
      return schema;
    }
    const results = (await c.query(
      `BEGIN;
       SELECT pg_advisory_xact_lock_shared(${VERSION_SWITCH_LOCK});
       SELECT schema_name, set_config('search_path', schema_name || ', public', true)
         FROM public.projection_versions WHERE status = 'active'`,
    )) as unknown as QueryResult<{ schema_name: string }>[];
    const row = results[2]?.rows[0];
    if (!row) throw new NoActiveVersionError();
    return assertSchemaName(row.schema_name);
  }

  async commit(c: PoolClient): Promise<void> {
    await c.query('COMMIT');
  }

  /** Ends a failed transaction; a connection already lost is left to the pool. */
  async rollback(c: PoolClient): Promise<void> {
    await c.query('ROLLBACK').catch(() => undefined);
  }

  /**
   * Runs `body` in one transaction on the target version on a pooled connection, committed when it resolves,
   * rolled back when it throws: work off the batches' path (positions, a re-drive, the insights' stored weeks).
   */
  async run<T>(body: (c: PoolClient) => Promise<T>): Promise<T> {
    const c = await this.db.connect();
    try {
      await this.begin(c);
      const result = await body(c);
      await this.commit(c);
      return result;
    } catch (e) {
      await this.rollback(c);
      throw e;
    } finally {
      c.release();
    }
  }

  /** The stored next offset of a partition (0 for a partition never seen). */
  loadPosition(topic: string, partition: number): Promise<number> {
    return this.run(async (c) => {
      await c.query(
        `INSERT INTO projector_offsets (group_id, topic, partition, next_offset) VALUES ($1, $2, $3, 0)
         ON CONFLICT DO NOTHING`,
        [this.groupId, topic, partition],
      );
      const r = await c.query<{ next_offset: string }>(
        `SELECT next_offset FROM projector_offsets WHERE group_id = $1 AND topic = $2 AND partition = $3`,
        [this.groupId, topic, partition],
      );
      return Number(r.rows[0].next_offset);
    });
  }

  /**
   * The guard: moves a partition's stored position inside the caller's transaction, only from the offset the
   * consumer expects; else throws OffsetConflictError (the partition is another consumer's now, or this one is
   * stale), and the transaction must not commit.
   */
  async advance(c: PoolClient, move: PositionMove): Promise<void> {
    const moved = await c.query(
      `UPDATE projector_offsets
          SET next_offset = $5,
              last_event_at = GREATEST(last_event_at, $6::timestamptz),
              updated_at = now()
        WHERE group_id = $1 AND topic = $2 AND partition = $3 AND next_offset = $4`,
      [this.groupId, move.topic, move.partition, move.expectedOffset, move.nextOffset, move.lastEventAt],
    );
    if (moved.rowCount !== 1) throw new OffsetConflictError(move.topic, move.partition, move.expectedOffset);
  }
}
