import { Logger } from '@nestjs/common';
import type { Kafka } from 'kafkajs';
import type { Pool } from 'pg';
import type { MigrationInterface } from 'typeorm';
import { topicWatermarks } from '@flaglens/kafka';
import {
  activeVersion,
  analyzeSchema,
  assertSchemaName,
  Database,
  createProjectionVersion,
  openPool,
  retryTransient,
  type Routine,
  searchPathOption,
  VERSION_SWITCH_LOCK,
  type ProjectionVersion,
} from '@flaglens/persistence';
import { allProjections, CHANGE_CHANNEL, checkpointSchema, EVERYTHING_CHANGED } from '@flaglens/projections';
import { BatchApplier } from './batch-applier';
import type { EventFormat } from '@flaglens/contract';
import type { DeadLetter } from './classify-messages';
import { PartitionConsumer } from './partition-consumer';
import { buildDeferredIndexes, deferSearchIndexes } from './deferred-indexes';
import { positionsIn, rebuildGroupOf } from '@flaglens/operations';

export interface RebuildOptions {
  url: string;
  kafka: Kafka;
  topic: string;
  /** The live projector's group: its positions are what the new version must reach before the switch. */
  liveGroupId: string;
  projectionMigrations: (new () => MigrationInterface)[];
  /** The projection routines (functions) re-applied after the migrations (VERSION_SCHEMA_ROUTINES, migrations/index.ts). */
  projectionRoutines?: Routine[];
  concurrency: number;
  sessionTimeoutMs: number;
  allowUnknownTypes: boolean;
  maxEventBytes: number;
  /** What the topic carries (EVENT_FORMAT); default `unleash`. */
  eventFormat?: EventFormat;
  /** How long the old version stays readable after the switch (api instances follow within seconds). */
  dropOldAfterMs: number;
  onProgress?: (p: RebuildProgress) => void;
  onDeadLetter?: (d: DeadLetter) => void;
  /** Stop early (tests): resolves the rebuild as interrupted; a later run resumes. */
  signal?: AbortSignal;
}

export interface RebuildProgress {
  /** `indexing`: caught up once, the search's indexes are built over the stored log before the switch */
  phase: 'replaying' | 'indexing' | 'switching' | 'switched';
  version: ProjectionVersion;
  applied: number;
  target: number;
  live: number;
}

export interface RebuildResult {
  version: ProjectionVersion;
  previous: ProjectionVersion | null;
  resumed: boolean;
  switched: boolean;
  deadLetters: number;
  seconds: number;
  events: number;
}

export class TopicTruncatedError extends Error {
  constructor(
    readonly partitions: { partition: number; low: number }[],
    topic: string,
  ) {
    super(
      `topic ${topic} no longer starts at its first event (${partitions
        .map((p) => `partition ${p.partition} starts at offset ${p.low}`)
        .join(', ')}): someone shortened its retention, so a replay from Kafka would lose events. ` +
        'Restore the topic, or rebuild from the event log in Postgres, which holds every accepted event.',
    );
    this.name = 'TopicTruncatedError';
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const sum = (m: Map<number, number>) => [...m.values()].reduce((a, b) => a + b, 0);

/** The positions of the dead letters of a topic that an operator re-drove and that were accepted. */
async function redrivenOffsets(pool: Pool, topic: string): Promise<Map<number, Set<number>>> {
  const r = await pool.query<{ partition: number; offset: string }>(
    `SELECT partition, "offset" FROM public.dead_letters
      WHERE topic = $1 AND redriven_at IS NOT NULL AND redrive_outcome IN ('stored', 'duplicate', 'rebuild')`,
    [topic],
  );
  const out = new Map<number, Set<number>>();
  for (const row of r.rows) {
    const set = out.get(row.partition) ?? new Set<number>();
    set.add(Number(row.offset));
    out.set(row.partition, set);
  }
  return out;
}

/**
 * Replays the topic from offset 0 into a new projection version while the live projector and the api keep
 * using the active one; once the new version has reached the live positions it is switched in atomically
 * (one transaction: positions handed to the live group, versions swapped, readers told). An interrupted
 * rebuild resumes the version it was building. The old version is dropped after a grace period.
 */
export async function runRebuild(opts: RebuildOptions): Promise<RebuildResult> {
  const log = new Logger('Rebuild');
  const started = Date.now();
  const marks = await topicWatermarks(opts.kafka, opts.topic);
  const truncated = marks.filter((m) => m.low > 0);
  if (truncated.length > 0) throw new TopicTruncatedError(truncated, opts.topic);

  const pool = openPool({ connectionString: opts.url, max: 3, application_name: 'flaglens-rebuild' });
  try {
    const building = await pool.query<{ version: number; schema_name: string }>(
      `SELECT version, schema_name FROM projection_versions WHERE status = 'building' ORDER BY version DESC LIMIT 1`,
    );
    const resumed = building.rows.length > 0;
    const version: ProjectionVersion = resumed
      ? { version: building.rows[0].version, schema: building.rows[0].schema_name, status: 'building' }
      : await createProjectionVersion(
          opts.url,
          pool,
          opts.projectionMigrations,
          'building',
          opts.projectionRoutines,
        );
    // the search's indexes are built after the bulk replay (an interrupted rebuild kept their definitions)
    if (!resumed) await deferSearchIndexes(pool, version.schema);
    const previous = await activeVersion(pool);
    log.log(
      `${resumed ? 'resuming' : 'building'} ${version.schema} from ${opts.topic} (active: ${previous?.schema ?? 'none'})`,
    );

    const groupId = rebuildGroupOf(opts.liveGroupId, version.version);
    const ds = new Database({
      url: opts.url,
      max: opts.concurrency + 1,
      applicationName: 'flaglens-rebuild',
      options: searchPathOption(version.schema),
      prepared: true,
    });
    let deadLetters = 0;
    const applier = new BatchApplier(
      ds,
      groupId,
      { kind: 'version', schema: version.schema },
      allProjections(),
      (p, id, reason) => log.warn(`${p}: event ${id} not applied: ${reason}`),
    );
    const redriven = await redrivenOffsets(pool, opts.topic);
    // a message that shows the topic is misconfigured fails the rebuild (nothing of it was applied)
    let refused: Error | undefined;
    const consumer = new PartitionConsumer(opts.kafka, applier, {
      name: 'Rebuild',
      redriven: (partition, offset) => redriven.get(partition)?.has(offset) === true,
      topic: opts.topic,
      groupId,
      concurrency: opts.concurrency,
      sessionTimeoutMs: opts.sessionTimeoutMs,
      allowUnknownTypes: opts.allowUnknownTypes,
      maxEventBytes: opts.maxEventBytes,
      eventFormat: opts.eventFormat,
      onBatch: ({ dead }) => {
        deadLetters += dead.length;
        for (const d of dead) opts.onDeadLetter?.(d);
      },
      onRefused: ({ reason }) => (refused ??= new Error(`the rebuild stops: ${reason}`)),
    });
    await consumer.start();
    let switched = false;
    let indexed = false;
    let applied = 0;
    try {
      for (;;) {
        if (opts.signal?.aborted) break;
        if (refused) throw refused;
        const [mine, live, high] = await Promise.all([
          positionsIn(pool, version.schema, groupId, opts.topic),
          previous
            ? positionsIn(pool, previous.schema, opts.liveGroupId, opts.topic)
            : Promise.resolve(new Map<number, number>()),
          topicWatermarks(opts.kafka, opts.topic),
        ]);
        applied = sum(mine);
        const target = high.reduce((n, p) => n + p.high, 0);
        // caught up: at or past the live projector's position on every partition (the live group may lag)
        const caughtUp = high.every((p) => (mine.get(p.partition) ?? 0) >= (live.get(p.partition) ?? 0));
        if (caughtUp && !indexed) {
          // while they are built the replay goes on (its writes wait for each build), then catches up again
          opts.onProgress?.({
            phase: 'indexing',
            version,
            applied,
            target: high.reduce((n, p) => n + p.high, 0),
            live: sum(live),
          });
          const t0 = Date.now();
          const built = await buildDeferredIndexes(pool, version.schema);
          if (built.length > 0)
            log.log(`built ${built.length} search indexes of ${version.schema} in ${Date.now() - t0} ms`);
          // its first reads after the switch are planned from what it holds, not from empty tables' statistics
          const t1 = Date.now();
          const tables = await analyzeSchema(pool, version.schema);
          log.log(`analyzed the ${tables} tables of ${version.schema} in ${Date.now() - t1} ms`);
          indexed = true;
          continue;
        }
        opts.onProgress?.({
          phase: caughtUp ? 'switching' : 'replaying',
          version,
          applied,
          target,
          live: sum(live),
        });
        if (caughtUp && (await trySwitch(pool, version, opts, groupId))) {
          switched = true;
          opts.onProgress?.({ phase: 'switched', version, applied, target, live: sum(live) });
          break;
        }
        await sleep(caughtUp ? 50 : 500);
      }
    } finally {
      await consumer.stop();
      await ds.end();
    }
    if (switched && previous) {
      log.log(
        `switched to ${version.schema}; ${previous.schema} is dropped in ${Math.round(opts.dropOldAfterMs / 1000)} s`,
      );
      await sleep(opts.dropOldAfterMs);
      // the old version and its checkpoints for reads as of an instant. A reader not yet moved to the new
      // version (its statements then run again there) may deadlock with a drop, which locks the tables one
      // after another: the drop, if it is the one cancelled, is tried again
      for (const schema of [assertSchemaName(previous.schema), checkpointSchema(previous.schema)]) {
        let attempts = 0;
        await retryTransient(() => pool.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`), {
          shouldStop: () => ++attempts >= 5,
        });
      }
    }
    return {
      version: { ...version, status: switched ? 'active' : 'building' },
      previous,
      resumed,
      switched,
      deadLetters,
      seconds: (Date.now() - started) / 1000,
      events: applied,
    };
  } finally {
    await pool.end();
  }
}

/**
 * The switch, in one transaction. The switch lock (VERSION_SWITCH_LOCK, taken exclusively) waits for the live
 * projector's batches in flight (each holds it shared) and holds the next ones back; inside, the new version must have reached
 * every live position, else nothing changes and the replay goes on.
 */
async function trySwitch(
  pool: Pool,
  version: ProjectionVersion,
  opts: RebuildOptions,
  groupId: string,
): Promise<boolean> {
  const c = await pool.connect();
  try {
    await c.query('BEGIN');
    await c.query(`SET LOCAL lock_timeout = '5s'`);
    // waits for the live batches in flight (each holds it shared) and holds the next ones back
    await c.query(`SELECT pg_advisory_xact_lock(${VERSION_SWITCH_LOCK})`);
    const active = await c.query<{ schema_name: string }>(
      `SELECT schema_name FROM projection_versions WHERE status = 'active' FOR UPDATE`,
    );
    const old = active.rows[0]?.schema_name;
    if (old) {
      const live = await c.query<{ partition: number; next_offset: string }>(
        `SELECT partition, next_offset FROM ${assertSchemaName(old)}.projector_offsets WHERE group_id = $1 AND topic = $2`,
        [opts.liveGroupId, opts.topic],
      );
      const mine = await c.query<{ partition: number; next_offset: string }>(
        `SELECT partition, next_offset FROM ${assertSchemaName(version.schema)}.projector_offsets WHERE group_id = $1 AND topic = $2`,
        [groupId, opts.topic],
      );
      const reached = new Map(mine.rows.map((r) => [r.partition, Number(r.next_offset)]));
      if (live.rows.some((r) => (reached.get(r.partition) ?? 0) < Number(r.next_offset))) {
        await c.query('ROLLBACK');
        return false;
      }
    }
    // the live group continues in the new version from where the rebuild got
    await c.query(
      `INSERT INTO ${assertSchemaName(version.schema)}.projector_offsets (group_id, topic, partition, next_offset, last_event_at)
       SELECT $1, topic, partition, next_offset, last_event_at FROM ${assertSchemaName(version.schema)}.projector_offsets
        WHERE group_id = $2 AND topic = $3
       ON CONFLICT (group_id, topic, partition) DO UPDATE
         SET next_offset = EXCLUDED.next_offset, last_event_at = EXCLUDED.last_event_at, updated_at = now()`,
      [opts.liveGroupId, groupId, opts.topic],
    );
    await c.query(
      `UPDATE projection_versions SET status = 'retired', retired_at = now() WHERE status = 'active'`,
    );
    await c.query(
      `UPDATE projection_versions SET status = 'active', activated_at = now() WHERE version = $1`,
      [version.version],
    );
    await c.query('SELECT pg_notify($1, $2)', [CHANGE_CHANNEL, EVERYTHING_CHANGED]);
    await c.query('COMMIT');
    return true;
  } catch (e) {
    await c.query('ROLLBACK').catch(() => undefined);
    if ((e as { code?: string }).code === '55P03') return false; // lock_timeout: try again
    throw e;
  } finally {
    c.release();
  }
}
