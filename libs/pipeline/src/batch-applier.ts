import type { PoolClient } from 'pg';
import type { Database } from '@flaglens/persistence';
import {
  appendEvents,
  applyProjections,
  CHANGE_CHANNEL,
  encodeChanges,
  writtenBy,
  type BatchChanges,
  type FlagTransition,
  type Projection,
  type SourcedEvent,
} from '@flaglens/projections';
import { BatchTransactions, type ProjectionTarget } from './batch-transaction';
import type { DeadLetter } from './classify-messages';
import { insertDeadLetters, isDataFailure, isolateEach } from './dead-letters';
import { StageTimer, type StageListener } from './stage-timing';

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
 * Applies batches in ONE Postgres transaction each (BatchTransactions): dead letters, the event log, the
 * projections, the change feed and each partition's stored position, guarded so that a consumer that lost the
 * partition cannot write. It calls down only (transaction and guard, dead letters, projections, change feed).
 */
export class BatchApplier {
  /** Times the stages of a batch (and the consumer's decoding), when a listener is given. */
  readonly timer: StageTimer;
  private readonly tx: BatchTransactions;
  private readonly stage: ReturnType<typeof batchStages>;

  constructor(
    private readonly db: Database,
    groupId: string,
    target: ProjectionTarget = { kind: 'active' },
    private readonly projections: Projection[] = [],
    private readonly onSkipped: (projection: string, eventId: number, reason: string) => void = () =>
      undefined,
    /**
     * Time and CPU spent per stage of a batch (`event-log`, each projection, `offsets`, …, and `classify`
     * before it): where ingest time goes.
     */
    onStage?: StageListener,
  ) {
    this.timer = new StageTimer(onStage);
    this.tx = new BatchTransactions(db, groupId, target);
    this.stage = batchStages(this.tx, this.timer);
  }

  /** The stored next offset of a partition (0 for a partition never seen). */
  loadPosition(topic: string, partition: number): Promise<number> {
    return this.tx.loadPosition(topic, partition);
  }

  /**
   * Runs `fn` in a transaction on the target version (as a batch would, the switch lock included), committed
   * when it resolves: work done off the batches' path (a re-drive, the insights' stored weeks).
   */
  transaction<T>(fn: (c: PoolClient) => Promise<T>): Promise<T> {
    return this.tx.run(fn);
  }

  async apply(batch: BatchToApply): Promise<ApplyOutcome> {
    try {
      return (await this.applyInOne([batch], false))[0];
    } catch (e) {
      // One event must never stop its partition: a failure that is not transient nor systemic (a value
      // Postgres refuses, an exception in projection code) redoes the batch event by event, and the events
      // that fail on their own are dead-lettered with the reason.
      if (!isDataFailure(e)) throw e;
      return (await this.applyInOne([batch], true))[0];
    }
  }

  /**
   * Batches of different partitions in ONE transaction, each partition's position guarded as in `apply`: under
   * steady load, one transaction (one fixed cost, no waits on the rows two concurrent transactions share)
   * instead of one per partition. All or nothing: on any failure nothing is written and the error is thrown,
   * for the caller to apply the batches one by one (`apply`: isolation, conflicts).
   */
  async applyGroup(batches: BatchToApply[]): Promise<ApplyOutcome[]> {
    const partitions = new Set(batches.map((b) => `${b.topic}\u0000${b.partition}`));
    if (partitions.size !== batches.length) throw new Error('applyGroup: one batch per partition');
    return this.applyInOne(batches, false);
  }

  /**
   * Appends events to the event log (each id once), runs every projection on the newly stored ones of a known
   * type and tells listeners what changed, inside the caller's transaction. With `isolate`, event by event under
   * savepoints: the ones the database or a projection refuses become dead letters instead of failing them all.
   */
  async applyEvents(
    c: PoolClient,
    accepted: SourcedEvent[],
    isolate: boolean,
  ): Promise<{ stored: SourcedEvent[]; rejected: DeadLetter[] }> {
    const changes: BatchChanges = new Map();
    const transitions: FlagTransition[] = [];
    // the projections see each newly stored event of a known type once, each the types it handles
    const appendAndProject = async (events: SourcedEvent[]): Promise<SourcedEvent[]> => {
      const stored = await this.stage['event-log'](c, events);
      const r = await applyProjections(c, stored, this.projections, {
        skipped: this.onSkipped,
        stage: (name, fn) => this.timer.run(c, name, fn),
      });
      mergeChanges(changes, r.changes);
      transitions.push(...r.transitions);
      return stored;
    };
    let stored: SourcedEvent[];
    let rejected: DeadLetter[] = [];
    if (!isolate) stored = await appendAndProject(accepted);
    else {
      // the append and every projection under one savepoint per event (projections are order- and
      // batch-independent, so one at a time gives the same state); what a refused event's projections recorded
      // as changed stays: a cache dropped in vain, never one kept wrongly
      const isolated = await isolateEach(c, accepted, (s) => appendAndProject([s]));
      stored = isolated.done.flat();
      rejected = isolated.rejected;
    }
    if (stored.length > 0)
      await this.stage.notify(c, await this.stage.changes(c, stored, changes, transitions));
    return { stored, rejected };
  }

  /**
   * One transaction of one batch or a group, driven here stage by stage: each stage calls down (to the
   * transaction and its guard, the event log, the projections, the change feed, the dead letters) and returns.
   */
  private async applyInOne(batches: BatchToApply[], isolate: boolean): Promise<ApplyOutcome[]> {
    const c = await this.db.connect();
    try {
      await this.stage.begin(c);
      const accepted = batches.length === 1 ? batches[0].accepted : batches.flatMap((b) => b.accepted);
      const { stored, rejected } = await this.applyEvents(c, accepted, isolate);
      const dead = [...batches.flatMap((b) => b.dead), ...rejected];
      if (dead.length > 0) await this.stage['dead-letters'](c, dead);
      // each partition's own figures (a group's events are told apart by partition)
      const mine = <T extends { topic: string | null; partition: number | null }>(
        b: BatchToApply,
        xs: T[],
      ) => (batches.length === 1 ? xs : xs.filter((x) => x.topic === b.topic && x.partition === b.partition));
      // in partition order, so concurrent transactions lock the offsets' rows in one order
      for (const batch of [...batches].sort((a, b) => a.partition - b.partition))
        await this.stage.offsets(c, batch, mine(batch, stored));
      await this.stage.commit(c);
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
      await this.tx.rollback(c);
      throw e;
    } finally {
      c.release();
    }
  }
}

/**
 * The stages of a batch's transaction besides the projections, each under its name (the metric
 * `flaglens_projector_stage_seconds_total`), timed by wrapping them here once; each projection is a stage of its
 * own, under its name (applyProjections' `stage` hook).
 */
function batchStages(tx: BatchTransactions, timer: StageTimer) {
  return timer.stages({
    begin: (c: PoolClient) => tx.begin(c),
    'event-log': (c: PoolClient, events: SourcedEvent[]) => appendEvents(c, events),
    // what the batch wrote, from the projections' declarations (change-feed.ts); delivered to listeners when
    // (and only if) this transaction commits
    changes: (c: PoolClient, stored: SourcedEvent[], changes: BatchChanges, transitions: FlagTransition[]) =>
      writtenBy(c, stored, changes, transitions),
    notify: (c: PoolClient, writes: Awaited<ReturnType<typeof writtenBy>>) =>
      c.query('SELECT pg_notify($1, notice) FROM unnest($2::text[]) AS notice', [
        CHANGE_CHANNEL,
        encodeChanges(writes),
      ]),
    'dead-letters': (c: PoolClient, dead: DeadLetter[]) => insertDeadLetters(c, dead),
    offsets: (c: PoolClient, batch: BatchToApply, stored: SourcedEvent[]) =>
      tx.advance(c, { ...batch, lastEventAt: latestCreatedAt(stored) }),
    commit: (c: PoolClient) => tx.commit(c),
  });
}

/** Adds what one run of the projections changed to what the batch changed so far. */
function mergeChanges(into: BatchChanges, from: BatchChanges): void {
  for (const [name, x] of from) {
    const acc = into.get(name);
    if (!acc) into.set(name, x);
    else {
      for (const f of x.flags) acc.flags.add(f);
      if (x.projects === '*' || acc.projects === '*') acc.projects = '*';
      else for (const p of x.projects) acc.projects.add(p);
    }
  }
}

function latestCreatedAt(events: SourcedEvent[]): string | null {
  let max: string | null = null;
  for (const s of events) if (max === null || s.event.createdAt > max) max = s.event.createdAt;
  return max;
}
