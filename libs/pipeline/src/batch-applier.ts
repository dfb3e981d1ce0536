import type { PoolClient } from 'pg';
import type { DataSource } from 'typeorm';
import { assertSchemaName } from '@flaglens/persistence';
import {
  appendEvents,
  CHANGE_CHANNEL,
  encodeChanges,
  type Projection,
  type SourcedEvent,
  withOverviewScope,
} from '@flaglens/projections';
import type { DeadLetter } from './classify-messages';

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

export interface BatchToApply {
  topic: string;
  partition: number;
  /** The stored next_offset this consumer believes in (the guard). */
  expectedOffset: number;
  /** The next_offset after this batch. */
  nextOffset: number;
  accepted: SourcedEvent[];
  dead: DeadLetter[];
}

export interface ApplyOutcome {
  stored: number;
  duplicates: number;
  deadLettered: number;
  /** Events the database refused (bad data that passed validation), moved to the dead letters. */
  rejected: DeadLetter[];
}

function isDataError(e: unknown): boolean {
  const code = (e as { code?: unknown })?.code;
  return typeof code === 'string' && (code.startsWith('22') || code.startsWith('23'));
}

/**
 * Applies one batch of one partition in ONE Postgres transaction: dead letters, the event log
 * (and, as they arrive, the other projections), and the partition's stored position, guarded so that
 * a consumer that lost the partition cannot write.
 */
export class BatchApplier {
  constructor(
    private readonly db: DataSource,
    private readonly groupId: string,
    private readonly target: ProjectionTarget = { kind: 'active' },
    private readonly projections: Projection[] = [],
    private readonly onSkipped: (projection: string, eventId: number, reason: string) => void = () =>
      undefined,
  ) {}

  private async withClient<T>(fn: (c: PoolClient) => Promise<T>): Promise<T> {
    const runner = this.db.createQueryRunner('master');
    const client = (await runner.connect()) as PoolClient;
    try {
      return await fn(client);
    } finally {
      await runner.release();
    }
  }

  /**
   * Points the transaction at the target version. For the active one, the row is share-locked so a
   * rebuild's switch waits for batches in flight and the next batch sees the new version.
   */
  private async enterVersion(c: PoolClient): Promise<string> {
    let schema: string;
    if (this.target.kind === 'version') {
      schema = this.target.schema;
    } else {
      // A switch that commits while this waits for the lock leaves the old row no longer active and the new
      // one invisible to this statement's snapshot: ask again with a fresh snapshot.
      let row: { schema_name: string } | undefined;
      for (let attempt = 0; attempt < 3 && !row; attempt++) {
        const r = await c.query<{ schema_name: string }>(
          `SELECT schema_name FROM public.projection_versions WHERE status = 'active' FOR SHARE`,
        );
        row = r.rows[0];
      }
      if (!row) throw new NoActiveVersionError();
      schema = row.schema_name;
    }
    await c.query(`SET LOCAL search_path TO ${assertSchemaName(schema)}, public`);
    return schema;
  }

  /** The stored next offset of a partition (0 for a partition never seen). */
  async loadPosition(topic: string, partition: number): Promise<number> {
    return this.withClient(async (c) => {
      await c.query('BEGIN');
      try {
        await this.enterVersion(c);
        await c.query(
          `INSERT INTO projector_offsets (group_id, topic, partition, next_offset) VALUES ($1, $2, $3, 0)
           ON CONFLICT DO NOTHING`,
          [this.groupId, topic, partition],
        );
        const r = await c.query<{ next_offset: string }>(
          `SELECT next_offset FROM projector_offsets WHERE group_id = $1 AND topic = $2 AND partition = $3`,
          [this.groupId, topic, partition],
        );
        await c.query('COMMIT');
        return Number(r.rows[0].next_offset);
      } catch (e) {
        await c.query('ROLLBACK').catch(() => undefined);
        throw e;
      }
    });
  }

  async apply(batch: BatchToApply): Promise<ApplyOutcome> {
    try {
      return await this.applyOnce(batch, false);
    } catch (e) {
      // A value the validator let through but Postgres refuses must not block the partition:
      // redo the batch event by event and dead-letter the ones refused.
      if (!isDataError(e)) throw e;
      return this.applyOnce(batch, true);
    }
  }

  private applyOnce(batch: BatchToApply, isolate: boolean): Promise<ApplyOutcome> {
    return this.withClient(async (c) => {
      await c.query('BEGIN');
      try {
        await this.enterVersion(c);
        const rejected: DeadLetter[] = [];
        let stored: SourcedEvent[];
        if (!isolate) {
          stored = await appendEvents(c, batch.accepted);
        } else {
          stored = [];
          for (const s of batch.accepted) {
            await c.query('SAVEPOINT one_event');
            try {
              stored.push(...(await appendEvents(c, [s])));
              await c.query('RELEASE SAVEPOINT one_event');
            } catch (e) {
              await c.query('ROLLBACK TO SAVEPOINT one_event');
              if (!isDataError(e)) throw e;
              rejected.push({
                topic: batch.topic,
                partition: batch.partition,
                offset: s.offset ?? -1,
                key: null,
                value: Buffer.from(JSON.stringify(s.event)),
                code: 'db-rejected',
                reason: `database refused the event: ${(e as Error).message}`.slice(0, 500),
                eventId: s.event.id,
              });
            }
          }
        }
        // the other projections see each newly stored event of a known type once
        const known = stored.filter((s) => s.knownType);
        const applyProjections = async () => {
          if (known.length === 0) return;
          for (const p of this.projections) {
            await p.apply(c, known, { skipped: (id, reason) => this.onSkipped(p.name, id, reason) });
          }
        };
        if (stored.length > 0) {
          // the projects whose overview this batch may change (the api's overview cache drops exactly those)
          const projects = await withOverviewScope(
            c,
            stored.map((s) => s.event),
            applyProjections,
          );
          // delivered to listeners when (and only if) this transaction commits
          const flags = stored.flatMap((s) => (s.event.featureName === null ? [] : [s.event.featureName]));
          await c.query('SELECT pg_notify($1, $2)', [CHANGE_CHANNEL, encodeChanges(flags, projects)]);
        }
        const dead = [...batch.dead, ...rejected];
        if (dead.length > 0) await insertDeadLetters(c, dead);
        const lastEventAt = latestCreatedAt(stored);
        const moved = await c.query(
          `UPDATE projector_offsets
              SET next_offset = $5,
                  last_event_at = GREATEST(last_event_at, $6::timestamptz),
                  updated_at = now()
            WHERE group_id = $1 AND topic = $2 AND partition = $3 AND next_offset = $4`,
          [this.groupId, batch.topic, batch.partition, batch.expectedOffset, batch.nextOffset, lastEventAt],
        );
        if (moved.rowCount !== 1)
          throw new OffsetConflictError(batch.topic, batch.partition, batch.expectedOffset);
        await c.query('COMMIT');
        return {
          stored: stored.length,
          duplicates: batch.accepted.length - stored.length - rejected.length,
          deadLettered: dead.length,
          rejected,
        };
      } catch (e) {
        await c.query('ROLLBACK').catch(() => undefined);
        throw e;
      }
    });
  }
}

function latestCreatedAt(events: SourcedEvent[]): string | null {
  let max: string | null = null;
  for (const s of events) if (max === null || s.event.createdAt > max) max = s.event.createdAt;
  return max;
}

async function insertDeadLetters(c: PoolClient, dead: DeadLetter[]): Promise<void> {
  await c.query(
    `INSERT INTO dead_letters (topic, partition, "offset", message_key, message_value, reason_code, reason, event_id)
     SELECT * FROM unnest($1::text[], $2::int[], $3::bigint[], $4::bytea[], $5::bytea[], $6::text[], $7::text[], $8::bigint[])
     ON CONFLICT ON CONSTRAINT dead_letters_position_uq DO NOTHING`,
    [
      dead.map((d) => d.topic),
      dead.map((d) => d.partition),
      dead.map((d) => d.offset),
      dead.map((d) => d.key),
      dead.map((d) => d.value),
      dead.map((d) => d.code),
      dead.map((d) => d.reason),
      dead.map((d) => d.eventId),
    ],
  );
}
