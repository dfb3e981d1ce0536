import type { PoolClient, QueryResult } from 'pg';
import {
  assertSchemaName,
  classifyFailure,
  describeFailure,
  type Database,
  VERSION_SWITCH_LOCK,
} from '@flaglens/persistence';
import {
  appendEvents,
  applyProjections,
  CHANGE_CHANNEL,
  deriveChanges,
  encodeChanges,
  type Projection,
  type SourcedEvent,
} from '@flaglens/projections';
import { storableText, type DeadLetter } from './classify-messages';
import { backendCpuSeconds, CpuShares, isLocalPostgres, type StageCost } from './stage-cost';

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
  /** The events newly stored (not duplicates), for metrics. */
  storedEvents: SourcedEvent[];
}

/**
 * A failure that is some event's own doing (see `classifyFailure`): isolate the event, dead-letter it. A moved
 * position is no event's doing: redone event by event it would fail the same way, after a savepoint per event.
 */
const isDataFailure = (e: unknown): boolean =>
  !(e instanceof OffsetConflictError) && classifyFailure(e) === 'data';

/** The dead-letter code of an event that passed validation but could not be applied. */
function rejectionCode(e: unknown): 'db-rejected' | 'projection-error' {
  const code = (e as { code?: unknown })?.code;
  return typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) ? 'db-rejected' : 'projection-error';
}

/**
 * Applies one batch of one partition in ONE Postgres transaction: dead letters, the event log
 * (and, as they arrive, the other projections), and the partition's stored position, guarded so that
 * a consumer that lost the partition cannot write.
 */
export class BatchApplier {
  constructor(
    private readonly db: Database,
    private readonly groupId: string,
    private readonly target: ProjectionTarget = { kind: 'active' },
    private readonly projections: Projection[] = [],
    private readonly onSkipped: (projection: string, eventId: number, reason: string) => void = () =>
      undefined,
    /**
     * Time and CPU spent per stage of a batch (`event-log`, each projection, `offsets`, …, and `classify`
     * before it): where ingest time goes.
     */
    private readonly onStage?: (stage: string, seconds: number, cost: StageCost) => void,
  ) {}

  private readonly cpu = new CpuShares();
  /** The pid of each pooled connection's backend when it is a local postgres process, else null. */
  private readonly backends = new WeakMap<PoolClient, number | null>();

  /** Runs `fn`, reporting its wall time and CPU (this process's, the backend's) under `stage`. */
  private async timed<T>(c: PoolClient | undefined, stage: string, fn: () => Promise<T>): Promise<T> {
    if (!this.onStage) return fn();
    const pid = c ? this.backends.get(c) : undefined;
    const db0 = pid ? backendCpuSeconds(pid) : undefined;
    const cpu = this.cpu.start();
    const t0 = process.hrtime.bigint();
    try {
      return await fn();
    } finally {
      const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
      const cpuSeconds = this.cpu.stop(cpu);
      const db1 = db0 !== undefined ? backendCpuSeconds(pid!) : undefined;
      this.onStage(stage, seconds, {
        seconds,
        cpuSeconds,
        dbCpuSeconds: db1 !== undefined ? db1 - db0! : undefined,
      });
    }
  }

  /** Runs synchronous work of a batch outside its transaction (decoding), reporting it under `stage`. */
  measure<T>(stage: string, fn: () => T): T {
    if (!this.onStage) return fn();
    const cpu = this.cpu.start();
    const t0 = process.hrtime.bigint();
    try {
      return fn();
    } finally {
      const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
      this.onStage(stage, seconds, { seconds, cpuSeconds: this.cpu.stop(cpu) });
    }
  }

  /** Learns, once per pooled connection, whether its backend's CPU can be read (only when stages are timed). */
  private async knowBackend(c: PoolClient): Promise<void> {
    if (!this.onStage || this.backends.has(c)) return;
    const r = await c.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
    const pid = Number(r.rows[0]?.pid);
    this.backends.set(c, isLocalPostgres(pid) ? pid : null);
  }

  private async withClient<T>(fn: (c: PoolClient) => Promise<T>): Promise<T> {
    const client = await this.db.connect();
    try {
      return await fn(client);
    } finally {
      client.release();
    }
  }

  /**
   * Begins the transaction and points it at the target version, in one round trip. For the active version,
   * the switch lock is taken shared first, so a rebuild's switch waits for batches in flight; the version is
   * then read with a snapshot taken after the lock, so the next batch sees a switch that committed meanwhile.
   */
  private async begin(c: PoolClient): Promise<string> {
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

  /**
   * Runs `fn` in a transaction on the target version (as a batch would, the switch lock included), committed
   * when it resolves: work of the projections done off the batches' path (e.g. the insights' stored weeks).
   */
  async transaction<T>(fn: (c: PoolClient) => Promise<T>): Promise<T> {
    return this.withClient(async (c) => {
      try {
        await this.begin(c);
        const result = await fn(c);
        await c.query('COMMIT');
        return result;
      } catch (e) {
        await c.query('ROLLBACK').catch(() => undefined);
        throw e;
      }
    });
  }

  /** The stored next offset of a partition (0 for a partition never seen). */
  async loadPosition(topic: string, partition: number): Promise<number> {
    return this.withClient(async (c) => {
      try {
        await this.begin(c);
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
      return (await this.applyOnce([batch], false))[0];
    } catch (e) {
      // One event must never stop its partition: a failure that is not transient nor systemic (a value
      // Postgres refuses, an exception in projection code) redoes the batch event by event, and the events
      // that fail on their own are dead-lettered with the reason.
      if (!isDataFailure(e)) throw e;
      return (await this.applyOnce([batch], true))[0];
    }
  }

  /**
   * Batches of different partitions in ONE transaction, each partition's position guarded as in `apply`: under
   * steady load, one transaction (one fixed cost, no waits on the rows two concurrent transactions share)
   * instead of one per partition. All or nothing: on any failure nothing is written and the error is thrown,
   * for the caller to apply the batches one by one (`apply`: retries, isolation, conflicts).
   */
  async applyGroup(batches: BatchToApply[]): Promise<ApplyOutcome[]> {
    const partitions = new Set(batches.map((b) => `${b.topic}\u0000${b.partition}`));
    if (partitions.size !== batches.length) throw new Error('applyGroup: one batch per partition');
    return this.applyOnce(batches, false);
  }

  /**
   * Appends events to the event log (each id once) and runs every projection on the newly stored ones of a
   * known type, inside the caller's transaction. With `isolate`, event by event: the ones the database
   * refuses become dead letters instead of failing the whole batch.
   */
  private async appendAndProject(
    c: PoolClient,
    accepted: SourcedEvent[],
    isolate: boolean,
  ): Promise<{ stored: SourcedEvent[]; rejected: DeadLetter[] }> {
    const rejected: DeadLetter[] = [];
    const stored: SourcedEvent[] = [];
    const changes: Awaited<ReturnType<typeof applyProjections>>['changes'] = new Map();
    const transitions: Awaited<ReturnType<typeof applyProjections>>['transitions'] = [];
    // the projections see each newly stored event of a known type once, each the types it handles
    const project = async (events: SourcedEvent[]) => {
      const r = await applyProjections(c, events, this.projections, {
        skipped: this.onSkipped,
        stage: (name, fn) => this.timed(c, name, fn),
      });
      for (const [name, x] of r.changes) {
        const into = changes.get(name);
        if (!into) changes.set(name, x);
        else {
          for (const f of x.flags) into.flags.add(f);
          if (x.projects === '*' || into.projects === '*') into.projects = '*';
          else for (const p of x.projects) into.projects.add(p);
        }
      }
      transitions.push(...r.transitions);
    };
    if (!isolate) {
      stored.push(...(await this.timed(c, 'event-log', () => appendEvents(c, accepted))));
      await project(stored);
    } else {
      // event by event, the append and every projection under one savepoint: an event that any of them
      // cannot store becomes a dead letter, its neighbours go on (projections are order- and
      // batch-independent, so one at a time gives the same state)
      for (const s of accepted) {
        await c.query('SAVEPOINT one_event');
        try {
          const one = await appendEvents(c, [s]);
          await project(one);
          await c.query('RELEASE SAVEPOINT one_event');
          stored.push(...one);
        } catch (e) {
          await c.query('ROLLBACK TO SAVEPOINT one_event');
          if (!isDataFailure(e)) throw e;
          // (what its projections recorded as changed stays: a cache dropped in vain, never one kept wrongly)
          rejected.push({
            topic: s.topic ?? '',
            partition: s.partition ?? -1,
            offset: s.offset ?? -1,
            key: null,
            // the bytes as received, so a re-drive sends exactly what the producer sent
            value: s.raw ?? Buffer.from(JSON.stringify(s.event)),
            code: rejectionCode(e),
            reason: describeFailure(e).slice(0, 500),
            eventId: s.event.id,
          });
        }
      }
    }
    if (stored.length > 0) {
      // what readers may have to drop: derived from the projections' declarations (change-feed.ts); delivered
      // to listeners when (and only if) this transaction commits
      const derived = await this.timed(c, 'changes', () => deriveChanges(c, stored, changes, transitions));
      await this.timed(c, 'notify', () =>
        c.query('SELECT pg_notify($1, notice) FROM unnest($2::text[]) AS notice', [
          CHANGE_CHANNEL,
          encodeChanges(derived.flags, derived.projects, derived.identity, derived.states),
        ]),
      );
    }
    return { stored, rejected };
  }

  private applyOnce(batches: BatchToApply[], isolate: boolean): Promise<ApplyOutcome[]> {
    return this.withClient(async (c) => {
      try {
        await this.knowBackend(c);
        await this.timed(c, 'begin', () => this.begin(c));
        const accepted = batches.length === 1 ? batches[0].accepted : batches.flatMap((b) => b.accepted);
        const { stored, rejected } = await this.appendAndProject(c, accepted, isolate);
        const dead = [...batches.flatMap((b) => b.dead), ...rejected];
        if (dead.length > 0) await this.timed(c, 'dead-letters', () => insertDeadLetters(c, dead));
        // each partition's own figures (a group's events are told apart by partition)
        const mine = <T extends { topic: string | null; partition: number | null }>(
          b: BatchToApply,
          xs: T[],
        ) =>
          batches.length === 1 ? xs : xs.filter((x) => x.topic === b.topic && x.partition === b.partition);
        // in partition order, so concurrent transactions lock the offsets' rows in one order
        const byPartition = [...batches].sort((a, b) => a.partition - b.partition);
        for (const batch of byPartition) {
          const moved = await this.timed(c, 'offsets', () =>
            c.query(
              `UPDATE projector_offsets
                SET next_offset = $5,
                    last_event_at = GREATEST(last_event_at, $6::timestamptz),
                    updated_at = now()
              WHERE group_id = $1 AND topic = $2 AND partition = $3 AND next_offset = $4`,
              [
                this.groupId,
                batch.topic,
                batch.partition,
                batch.expectedOffset,
                batch.nextOffset,
                latestCreatedAt(mine(batch, stored)),
              ],
            ),
          );
          if (moved.rowCount !== 1)
            throw new OffsetConflictError(batch.topic, batch.partition, batch.expectedOffset);
        }
        await this.timed(c, 'commit', () => c.query('COMMIT'));
        return batches.map((batch) => {
          const storedOf = mine(batch, stored);
          const rejectedOf = mine(batch, rejected);
          return {
            stored: storedOf.length,
            duplicates: batch.accepted.length - storedOf.length - rejectedOf.length,
            deadLettered: batch.dead.length + rejectedOf.length,
            rejected: rejectedOf,
            storedEvents: storedOf,
          };
        });
      } catch (e) {
        await c.query('ROLLBACK').catch(() => undefined);
        throw e;
      }
    });
  }

  /**
   * Re-drives dead letters whose stored value is now valid: the events go through the normal path (event
   * log with id dedupe, then every projection) in ONE transaction on the target version, and each dead
   * letter is marked (`redriven_at`, `redrive_outcome`) in that same transaction. No offset moves.
   * Dead letters already re-driven (by a concurrent or earlier run) are left alone: exactly once.
   */
  async applyRedrive(items: RedriveItem[]): Promise<RedriveResult[]> {
    try {
      return await this.redriveOnce(items, false);
    } catch (e) {
      if (!isDataFailure(e)) throw e;
      return this.redriveOnce(items, true);
    }
  }

  private redriveOnce(items: RedriveItem[], isolate: boolean): Promise<RedriveResult[]> {
    if (items.length === 0) return Promise.resolve([]);
    return this.withClient(async (c) => {
      try {
        await this.begin(c);
        const pending = await c.query<{ id: string }>(
          `SELECT id FROM public.dead_letters WHERE id = ANY($1::bigint[]) AND redriven_at IS NULL FOR UPDATE`,
          [items.map((i) => i.deadLetterId)],
        );
        const open = new Set(pending.rows.map((r) => Number(r.id)));
        const todo = items.filter((i) => open.has(i.deadLetterId));
        const { stored, rejected } = await this.appendAndProject(
          c,
          todo.map((i) => i.event),
          isolate,
        );
        const storedIds = new Set(stored.map((s) => s.event.id));
        const rejectedIds = new Map(rejected.map((r) => [r.eventId, r.reason]));
        const results: RedriveResult[] = items.map((i) => {
          if (!open.has(i.deadLetterId)) return { deadLetterId: i.deadLetterId, outcome: 'already-redriven' };
          const id = i.event.event.id;
          if (rejectedIds.has(id))
            return { deadLetterId: i.deadLetterId, outcome: 'db-rejected', reason: rejectedIds.get(id) };
          if (storedIds.delete(id)) return { deadLetterId: i.deadLetterId, outcome: 'stored' };
          return { deadLetterId: i.deadLetterId, outcome: 'duplicate' };
        });
        const done = results.filter((r) => r.outcome === 'stored' || r.outcome === 'duplicate');
        const refused = results.filter((r) => r.outcome === 'db-rejected');
        if (done.length > 0)
          await c.query(
            `UPDATE public.dead_letters d SET redriven_at = now(), redrive_outcome = u.outcome
               FROM unnest($1::bigint[], $2::text[]) AS u(id, outcome) WHERE d.id = u.id`,
            [done.map((r) => r.deadLetterId), done.map((r) => r.outcome)],
          );
        if (refused.length > 0)
          await c.query(
            `UPDATE public.dead_letters d SET redrive_outcome = u.outcome
               FROM unnest($1::bigint[], $2::text[]) AS u(id, outcome) WHERE d.id = u.id`,
            [
              refused.map((r) => r.deadLetterId),
              refused.map((r) => `still invalid: db-rejected: ${r.reason}`),
            ],
          );
        await c.query('COMMIT');
        return results;
      } catch (e) {
        await c.query('ROLLBACK').catch(() => undefined);
        throw e;
      }
    });
  }
}

/** A dead letter whose raw value now passes validation, with the event it carries. */
export interface RedriveItem {
  deadLetterId: number;
  event: SourcedEvent;
}

export interface RedriveResult {
  deadLetterId: number;
  /** stored: newly projected; duplicate: its id was already in the event log; already-redriven: left alone */
  outcome: 'stored' | 'duplicate' | 'db-rejected' | 'already-redriven';
  reason?: string;
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
      // a reason quotes the message, which may hold U+0000; Postgres text cannot
      dead.map((d) => storableText(d.reason)),
      dead.map((d) => d.eventId),
    ],
  );
}
