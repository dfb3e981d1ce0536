import fc from 'fast-check';
import type { PoolClient } from 'pg';
import type { FlagEvent } from '@flaglens/contract';
import type { RowQueryable } from '@flaglens/persistence';
import { generateHistory } from '@flaglens/testing/generate-history';
import { feedProjections } from '@flaglens/testing/support/feed-projections';
import { projectionDatabases } from '@flaglens/testing/support/test-database';
import { interleavedBatches, withLateArrivals } from '@flaglens/testing/test-events';
import { referenceSampleEvents } from '@flaglens/testing/reference-sample';
import {
  AsOfTooFar,
  checkpointStorage,
  makeCheckpoint,
  readAsOf,
  tidyAsOf,
  type MadeCheckpoint,
} from './as-of';
import { READS_ANYTHING, type Reads } from './change-feed';
import { IDENTITY_READS, IdentityReadModel } from './identity/identity.read-model';
import { InsightsReadModel } from './insights/insights.read-model';
import { LIFECYCLE_READS, LifecycleReadModel } from './lifecycle/lifecycle.read-model';
import { OVERVIEW_AS_OF_READS, OverviewReadModel } from './overview/overview.read-model';

/**
 * The overview and the profile as of an instant (docs/design.md, "Reads as of an instant"): for random
 * histories and random instants T, the read through `readAsOf` on a database fed the whole history, with the
 * clock at T, equals the same read of a fresh database fed only the events created up to T, with its clock
 * at T. Real Postgres; events fed as the projector applies them (feedProjections: the event log first, every
 * projection, one transaction per batch, keys interleaved at random).
 */
const END = '2026-11-20T12:00:00.000Z';
const DAY = 86_400_000;
const PROJECTS = ['default', 'sim-project-1', 'sim-project-2'];
/** the generator's users (25) and groups' members, the admin, and one never created */
const USERS = Array.from({ length: 27 }, (_, i) => i + 1);

/** A history with late arrivals (ids above every other, old `createdAt`), as event-log/as-of.int-spec.ts. */
function historyOf(seed: number, late: number): FlagEvent[] {
  const events = generateHistory({
    seed,
    projects: PROJECTS.length,
    flagsPerProject: 4,
    events: 300,
    weeks: 12,
    end: END,
    rich: true,
  });
  return withLateArrivals(events, seed, late);
}

type Answers = Record<string, unknown>;

/**
 * The reads, each with what the api declares it reads as of an instant (readAsOf's `reads`: only the
 * projections of those tables are replayed), read at `now`: the insights and the lifecycle summary (for
 * everyone, and with a project hidden), every overview (live and archived flag counts) with the favourite its
 * body carries, every profile.
 */
const READS: {
  name: string;
  reads: readonly Reads[];
  read(db: RowQueryable, now: Date, projects: string[]): Promise<Answers>;
}[] = [
  {
    name: 'insights',
    reads: [READS_ANYTHING],
    async read(db, now, projects) {
      const identity = new IdentityReadModel(db);
      const insights = new InsightsReadModel(db, (p) => identity.countMembersOfProjects(p));
      const out: Answers = {};
      for (const hidden of [[], [projects[1]]])
        out[`insights:${hidden.join()}`] = await insights.report(now, { from: null, to: null }, hidden);
      return out;
    },
  },
  {
    name: 'lifecycle',
    reads: [LIFECYCLE_READS],
    async read(db, now, projects) {
      const out: Answers = {};
      for (const hidden of [[], [projects[1]]])
        out[`lifecycle:${hidden.join()}`] = await new LifecycleReadModel(db).summary(now, null, hidden);
      return out;
    },
  },
  {
    name: 'overview',
    reads: OVERVIEW_AS_OF_READS,
    async read(db, now, projects) {
      const identity = new IdentityReadModel(db);
      const out: Answers = {};
      for (const p of projects)
        for (const archived of [false, true])
          out[`overview:${p}:${archived}`] = await new OverviewReadModel(db).snapshot(p, now, archived);
      // the favourite the overview's body carries (its visibility is judged as of now, by the api)
      for (const u of USERS)
        for (const p of projects) out[`access:${u}:${p}`] = await identity.accessToProject(u, p);
      return out;
    },
  },
  {
    name: 'profile',
    reads: [IDENTITY_READS],
    async read(db) {
      const identity = new IdentityReadModel(db);
      const out: Answers = {};
      for (const u of USERS) out[`profile:${u}`] = await identity.profile(u);
      return out;
    },
  },
];

/** Every read of READS, at `now`. */
async function everything(db: RowQueryable, now: Date, projects: string[]): Promise<Answers> {
  const out: Answers = {};
  for (const r of READS) Object.assign(out, await r.read(db, now, projects));
  return out;
}

/**
 * Each read of READS with its declared `reads` (only the projections it needs replayed), from the newest usable
 * checkpoint if any, on a connection that keeps its fresh tables: each equals its part of `expected`.
 */
async function expectEachAsDeclared(
  c: PoolClient,
  at: string,
  projects: string[],
  expected: Answers,
): Promise<void> {
  for (const r of READS.filter((x) => !x.reads.includes(READS_ANYTHING))) {
    const { value } = await readAsOf(c, at, (db) => r.read(db, new Date(at), projects), {
      keep: true,
      reads: r.reads,
    });
    expect([r.name, value]).toEqual([
      r.name,
      Object.fromEntries(Object.keys(value).map((k) => [k, expected[k]])),
    ]);
  }
}

describe('the overview and the profile as of an instant equal those of a log cut there (real Postgres)', () => {
  const dbs = projectionDatabases();
  afterAll(() => dbs.dropAll());

  it('for random histories and instants', async () => {
    let runs = 0;
    let fromCheckpoints = 0;
    let fromChanges = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 1_000_000 }),
        fc.integer({ min: 0, max: 12 }),
        fc.array(
          // an event's own instant (ties at T included), any instant of the history, before it, after it
          fc.oneof(
            fc.nat().map((n) => ({ event: n })),
            fc.integer({ min: -100 * DAY, max: 70 * DAY }).map((ms) => ({ ms })),
          ),
          { minLength: 1, maxLength: 2 },
        ),
        async (seed, late, instants) => {
          const history = historyOf(seed, late);
          const whole = await dbs.fresh(`asof2_whole_${runs}`);
          await feedProjections(whole.ds, interleavedBatches(history, seed, 60));
          // checkpoints every few dozen events: reads start from the newest usable one before their instant. Made
          // as the projector makes them: on a connection of its own that keeps its fresh tables from one to the
          // next; for even seeds, three times as far apart while the maker is far behind (catching up)
          const maker = await whole.ds.connect();
          const every = 10 + (seed % 50);
          try {
            while (
              await makeCheckpoint(maker, every, {
                keep: true,
                catchUp: seed % 2 === 0 ? 3 * every : undefined,
              })
            );
          } finally {
            maker.release(true);
          }
          const projects = [...PROJECTS, 'never-a-project'];
          for (const [i, instant] of instants.entries()) {
            const ms =
              'event' in instant
                ? Date.parse(history[instant.event % history.length].createdAt)
                : Date.parse(END) + instant.ms;
            const at = new Date(ms).toISOString();
            const cut = await dbs.fresh(`asof2_cut_${runs}_${i}`);
            await feedProjections(
              cut.ds,
              interleavedBatches(
                history.filter((e) => Date.parse(e.createdAt) <= ms),
                seed + i,
                60,
              ),
            );
            const expected = await everything(cut.ds, new Date(ms), projects);
            const c = await whole.ds.connect();
            try {
              // from a checkpoint, on a connection that keeps its fresh tables (as the api's), and from nothing
              const kept = await readAsOf(c, at, (db) => everything(db, new Date(ms), projects), {
                keep: true,
              });
              expect(kept.value).toEqual(expected);
              if (kept.replay.checkpoint !== null) fromCheckpoints++;
              if (kept.replay.amends > 0) fromChanges++;
              await expectEachAsDeclared(c, at, projects, expected);
              // replayed whole even where the version's own tables are read (no event after the instant)
              const full = await readAsOf(c, at, (db) => everything(db, new Date(ms), projects), {
                checkpoints: false,
                live: false,
              });
              expect(full.value).toEqual(expected);
            } finally {
              c.release();
            }
          }
          runs++;
        },
      ),
      // four random runs, and one first that surely reads from a checkpoint: the random ones may not (a late
      // arrival early in the history leaves no checkpoint after its instant), a history without late arrivals
      // read a day before its end does; and at its end, where no event is after the instant (the version's own
      // tables, `liveUpTo`)
      { numRuns: 5, examples: [[42, 0, [{ ms: -DAY }, { ms: 0 }]]] },
    );
    expect(runs).toBeGreaterThanOrEqual(5);
    expect(fromCheckpoints).toBeGreaterThan(0);
    // checkpoints kept as their changes to an earlier one's rows were read too
    expect(fromChanges).toBeGreaterThan(0);
  });

  it('the recorded reference sample, at ten instants', async () => {
    const sample = referenceSampleEvents();
    const whole = await dbs.fresh('asof2_sample_whole');
    await feedProjections(whole.ds, interleavedBatches(sample, 1, 10));
    const maker = await whole.ds.connect();
    try {
      while (await makeCheckpoint(maker, 15));
    } finally {
      maker.release();
    }
    // one database fed in steps of createdAt: after each step, a flaglens fed the events up to that instant
    const cut = await dbs.fresh('asof2_sample_cut');
    const times = [...new Set(sample.map((e) => Date.parse(e.createdAt)))].sort((a, b) => a - b);
    const instants = Array.from({ length: 10 }, (_, k) => {
      const t = times[Math.floor((k * (times.length - 1)) / 9)];
      return k % 2 === 0 ? t : t + 1; // on an event's own instant, and just after it
    });
    instants[0] = times[0] - 1; // before the first event
    const projects = [...new Set(sample.map((e) => e.project).filter((p) => p !== null)), 'default'];
    const fed = new Set<number>();
    let checkpointed = 0;
    let amended = 0;
    const c = await whole.ds.connect();
    try {
      for (const ms of instants) {
        const next = sample.filter((e) => Date.parse(e.createdAt) <= ms && !fed.has(e.id));
        next.forEach((e) => fed.add(e.id));
        if (next.length > 0) await feedProjections(cut.ds, [next]);
        const at = new Date(ms).toISOString();
        const { value, replay } = await readAsOf(c, at, (db) => everything(db, new Date(ms), projects), {
          keep: true,
        });
        const expected = await everything(cut.ds, new Date(ms), projects);
        expect(value).toEqual(expected);
        if (replay.checkpoint !== null) checkpointed++;
        if (replay.amends > 0) amended++;
        await expectEachAsDeclared(c, at, projects, expected);
      }
    } finally {
      c.release(true);
    }
    expect(fed.size).toBe(sample.length);
    expect(checkpointed).toBeGreaterThanOrEqual(5);
    expect(amended).toBeGreaterThan(0);
  });

  it('reads the version’s own tables, replaying nothing, at and after the newest event stored', async () => {
    const history = historyOf(7, 2);
    const { ds } = await dbs.fresh('asof2_live');
    await feedProjections(ds, interleavedBatches(history, 7, 60));
    const newest = Math.max(...history.map((e) => Date.parse(e.createdAt)));
    const projects = [...PROJECTS, 'never-a-project'];
    const c = await ds.connect();
    try {
      for (const ms of [newest, newest + 1, newest + 40 * DAY]) {
        const at = new Date(ms).toISOString();
        const live = await readAsOf(
          c,
          at,
          async (db) => {
            const answers = await everything(db, new Date(ms), projects);
            // the version's tables, and still a read: a write to them is refused
            await expect(db.query(`INSERT INTO event_counts (names, n) VALUES ('{x}', 1)`)).rejects.toThrow(
              /read-only transaction/,
            );
            return answers;
          },
          { keep: true },
        );
        expect(live.replay).toMatchObject({ live: true, events: 0, checkpoint: null });
        // then, on the same connection, the whole log replayed into its fresh tables: the same answers
        const replayed = await readAsOf(c, at, (db) => everything(db, new Date(ms), projects), {
          keep: true,
          live: false,
        });
        expect(replayed.replay).toMatchObject({ live: false, events: history.length });
        expect(live.value).toEqual(replayed.value);
      }
      // an instant before the newest event: replayed
      const before = await readAsOf(c, new Date(newest - 1).toISOString(), async () => null, { keep: true });
      expect(before.replay.live).toBe(false);
      expect(before.replay.events).toBe(history.filter((e) => Date.parse(e.createdAt) < newest).length);
    } finally {
      c.release();
    }
  });

  it('leaves the database and the connection as they were, and writes nothing of its own', async () => {
    const history = historyOf(5, 3);
    const { ds } = await dbs.fresh('asof2_untouched');
    await feedProjections(ds, [history]);
    const c = await ds.connect();
    try {
      const fingerprint = async () =>
        (
          await c.query<{ t: string; n: string; h: string }>(
            `SELECT c.relname AS t, (xpath('/row/n/text()',
                      query_to_xml(format('SELECT count(*) AS n FROM %I.%I', n.nspname, c.relname), false, true, '')))[1]::text AS n,
                    (xpath('/row/h/text()', query_to_xml(format(
                      'SELECT md5(string_agg(x::text, '','' ORDER BY x::text)) AS h FROM %I.%I x', n.nspname, c.relname),
                      false, true, '')))[1]::text AS h
               FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
              WHERE c.relkind = 'r' AND n.nspname IN ('flaglens_v1', 'public') ORDER BY 1`,
          )
        ).rows;
      // a statement prepared on this connection before, against the version's tables
      const prepared = { name: 'asof-flags', text: 'SELECT count(*)::int AS n FROM flag_state' };
      const before = await fingerprint();
      const live = (await c.query<{ n: number }>(prepared)).rows[0].n;
      expect(live).toBeGreaterThan(0);
      const mid = history[Math.floor(history.length / 2)].createdAt;
      const { value, replay } = await readAsOf(c, mid, async (db) => {
        const [{ n }] = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM flag_state');
        // a write to a table of the version is refused, not done
        await expect(
          db.query(`INSERT INTO flaglens_v1.event_counts (names, n) VALUES ('{x}', 1)`),
        ).rejects.toThrow(/read-only transaction/);
        return n;
      });
      expect(replay.events).toBe(history.filter((e) => e.createdAt <= mid).length);
      expect(value).toBeLessThanOrEqual(live);
      // the same connection reads the version's tables again, through the statement prepared before
      expect((await c.query<{ n: number }>(prepared)).rows[0].n).toBe(live);
      expect(await fingerprint()).toEqual(before);
      const temp = await c.query(`SELECT 1 FROM pg_class WHERE relpersistence = 't'`);
      expect(temp.rows).toEqual([]);
    } finally {
      c.release();
    }
  });
});

describe('checkpoints for reads as of an instant (real Postgres)', () => {
  const dbs = projectionDatabases();
  afterAll(() => dbs.dropAll());

  it('a late event stored after a checkpoint makes it unusable; the maker drops it and makes it again', async () => {
    const history = historyOf(11, 0);
    const late = history[Math.floor(history.length / 4)];
    const rest = history.filter((e) => e.id !== late.id);
    const whole = await dbs.fresh('asof3_late');
    await feedProjections(whole.ds, [rest]);
    const c = await whole.ds.connect();
    try {
      const made = [];
      for (let m; (m = await makeCheckpoint(c, 50));) made.push(m);
      expect(made.length).toBeGreaterThanOrEqual(4);
      expect(made.map((m) => m.events)).toEqual(made.map((_, i) => 50 * (i + 1)));
      expect((await checkpointStorage(c)).checkpoints).toBe(made.length);
      // the late event: a higher id than all, an instant before most checkpoints
      const stamped = { ...late, id: Math.max(...history.map((e) => e.id)) + 1 };
      await feedProjections(whole.ds, [[stamped]]);
      const cut = await dbs.fresh('asof3_late_cut');
      const at = made[made.length - 1].upto;
      const ms = Date.parse(at);
      await feedProjections(cut.ds, [[...rest, stamped].filter((e) => Date.parse(e.createdAt) <= ms)]);
      const projects = [...PROJECTS, 'never-a-project'];
      const read = await readAsOf(c, at, (db) => everything(db, new Date(ms), projects));
      // every checkpoint after the late event's instant is passed over
      const usable = made.filter((m) => m.upto < stamped.createdAt);
      expect(read.replay.checkpoint).toBe(usable.length > 0 ? usable[usable.length - 1].upto : null);
      expect(read.value).toEqual(await everything(cut.ds, new Date(ms), projects));
      // the maker drops the unusable ones, then makes them again from the log as it is now
      const again = [];
      for (let m; (m = await makeCheckpoint(c, 50));) again.push(m);
      expect((await checkpointStorage(c)).checkpoints).toBe(usable.length + again.length);
      const after = await readAsOf(c, at, (db) => everything(db, new Date(ms), projects));
      expect(after.replay.checkpoint).not.toBeNull();
      expect(after.replay.checkpoint! >= (usable.length > 0 ? usable[usable.length - 1].upto : '')).toBe(
        true,
      );
      expect(after.value).toEqual(read.value);
    } finally {
      c.release();
    }
  });

  it('a maker far behind the log steps `catchUp` events at a time until it is near, then `every`', async () => {
    const history = historyOf(11, 0);
    const whole = await dbs.fresh('asof3_catch_up');
    await feedProjections(whole.ds, [history]);
    const c = await whole.ds.connect();
    try {
      const made: MadeCheckpoint[] = [];
      for (let m; (m = await makeCheckpoint(c, 10, { catchUp: 40 }));) made.push(m);
      // 40 events on while more than 80 are stored after the newest checkpoint, 10 from there on
      const steps = made.map((m, i) => ({
        behind: history.length - (i === 0 ? 0 : made[i - 1].events),
        step: m.events - (i === 0 ? 0 : made[i - 1].events),
      }));
      expect(steps.map((s) => s.step)).toEqual(steps.map((s) => (s.behind > 80 ? 40 : 10)));
      expect(steps.filter((s) => s.step === 40).length).toBeGreaterThanOrEqual(2);
      expect(steps.filter((s) => s.step === 10).length).toBeGreaterThanOrEqual(2);
      // a read between two checkpoints made 40 apart starts from the first, and equals the log cut there
      const coarse = made.findIndex((m, i) => i > 0 && steps[i].step === 40);
      const ms = (Date.parse(made[coarse - 1].upto) + Date.parse(made[coarse].upto)) / 2;
      const cut = await dbs.fresh('asof3_catch_up_cut');
      await feedProjections(cut.ds, [history.filter((e) => Date.parse(e.createdAt) <= ms)]);
      const projects = [...PROJECTS, 'never-a-project'];
      const read = await readAsOf(c, new Date(ms).toISOString(), (db) =>
        everything(db, new Date(ms), projects),
      );
      expect(read.replay.checkpoint).toBe(made[coarse - 1].upto);
      expect(read.replay.events).toBeGreaterThan(0);
      expect(read.value).toEqual(await everything(cut.ds, new Date(ms), projects));
    } finally {
      c.release();
    }
  });

  it('refuses a read that would replay more events than its bound, counting from its checkpoint', async () => {
    const history = historyOf(13, 0);
    const whole = await dbs.fresh('asof3_too_far');
    await feedProjections(whole.ds, [history]);
    const c = await whole.ds.connect();
    try {
      const sorted = [...history].sort(
        (a, b) => Date.parse(a.createdAt) - Date.parse(b.createdAt) || a.id - b.id,
      );
      // an instant with 120 events up to it (ties at that instant counted too)
      const at = sorted[119].createdAt;
      const upTo = history.filter((e) => Date.parse(e.createdAt) <= Date.parse(at)).length;
      // no checkpoint: every event up to the instant is counted
      const refused = await readAsOf(c, at, async () => 'read', { maxReplay: upTo - 1 }).catch(
        (e: unknown) => e,
      );
      expect(refused).toBeInstanceOf(AsOfTooFar);
      expect(refused).toMatchObject({ events: upTo, limit: upTo - 1, from: null });
      expect((refused as Error).message).toContain('AS_OF_MAX_REPLAY_EVENTS');
      // the connection is usable after it, and a bound it keeps to is read
      expect((await readAsOf(c, at, async () => 'read', { maxReplay: upTo })).value).toBe('read');
      // from a checkpoint: only the events after it count
      const made = await makeCheckpoint(c, 100);
      expect(made).not.toBeNull();
      const read = await readAsOf(c, at, async () => 'read', { maxReplay: upTo - Number(made!.events) });
      expect(read.replay.checkpoint).toBe(made!.upto);
    } finally {
      c.release();
    }
  });

  it("an event stored since, before a checkpoint in its partition's order, is replayed from the start", async () => {
    const history = historyOf(12, 0);
    const whole = await dbs.fresh('asof3_order');
    // an event of a low id held back, the rest checkpointed
    const held = history[1];
    const rest = history.filter((e) => e.id !== held.id);
    await feedProjections(whole.ds, [rest]);
    const c = await whole.ds.connect();
    try {
      while (await makeCheckpoint(c, 40));
      const [k] = (
        await c.query<{ upto: Date }>(`SELECT upto FROM flaglens_v1_as_of.checkpoints ORDER BY upto LIMIT 1`)
      ).rows;
      // an event with a lower id than the checkpoint's last (so before them in the replay's order), created after
      const early = { ...held, createdAt: new Date(k.upto.getTime() + 1).toISOString() };
      await feedProjections(whole.ds, [[early]]);
      const at = new Date(k.upto.getTime() + 1).toISOString();
      const read = await readAsOf(c, at, async (db) => db.query('SELECT count(*)::int AS n FROM event_log'));
      expect(read.replay.checkpoint).toBeNull();
      const cut = await dbs.fresh('asof3_order_cut');
      await feedProjections(cut.ds, [[...rest, early].filter((e) => e.createdAt <= at)]);
      const projects = [...PROJECTS, 'never-a-project'];
      const ms = Date.parse(at);
      expect((await readAsOf(c, at, (db) => everything(db, new Date(ms), projects))).value).toEqual(
        await everything(cut.ds, new Date(ms), projects),
      );
    } finally {
      c.release();
    }
  });

  it('a maker that keeps its tables goes on from its last checkpoint, and from fresh tables after an event out of order', async () => {
    const history = historyOf(14, 0);
    const held = history[1];
    const rest = history.filter((e) => e.id !== held.id);
    const cutAt = Math.floor(rest.length * 0.7);
    const whole = await dbs.fresh('asof3_holding');
    await feedProjections(whole.ds, [rest.slice(0, cutAt)]);
    const maker = await whole.ds.connect();
    const projects = [...PROJECTS, 'never-a-project'];
    const sameAsCut = async (at: string, fed: FlagEvent[], name: string) => {
      const cut = await dbs.fresh(name);
      const ms = Date.parse(at);
      await feedProjections(cut.ds, [fed.filter((e) => Date.parse(e.createdAt) <= ms)]);
      const c = await whole.ds.connect();
      try {
        const read = await readAsOf(c, at, (db) => everything(db, new Date(ms), projects));
        expect(read.value).toEqual(await everything(cut.ds, new Date(ms), projects));
        return read.replay;
      } finally {
        c.release();
      }
    };
    try {
      const made = [];
      for (let m; (m = await makeCheckpoint(maker, 30, { keep: true }));) made.push(m);
      expect(made.length).toBeGreaterThanOrEqual(3);
      // stored as changes to the first, each replayed on the rows the maker's tables kept
      const kinds = (
        await whole.ds.query<{ full: boolean }>(
          `SELECT base = id AS full FROM flaglens_v1_as_of.checkpoints ORDER BY id`,
        )
      ).map((r) => r.full);
      expect(kinds[0]).toBe(true);
      expect(kinds.filter((full) => !full).length).toBeGreaterThan(0);
      const last = made[made.length - 1];
      expect((await sameAsCut(last.upto, rest, 'asof3_holding_cut1')).checkpoint).toBe(last.upto);
      // an event with a low id (before the kept checkpoint's events in the replay's order), created after it
      const early = { ...held, createdAt: new Date(Date.parse(last.upto) + 1).toISOString() };
      await feedProjections(whole.ds, [[early], rest.slice(cutAt)]);
      const again = [];
      for (let m; (m = await makeCheckpoint(maker, 30, { keep: true }));) again.push(m);
      expect(again.length).toBeGreaterThan(0);
      // the first after it replayed every event from fresh tables, so it is kept whole
      const [next] = await whole.ds.query<{ full: boolean }>(
        `SELECT base = id AS full FROM flaglens_v1_as_of.checkpoints WHERE upto = $1`,
        [again[0].upto],
      );
      expect(next.full).toBe(true);
      const fed = [...rest, early];
      for (const [i, m] of again.entries()) await sameAsCut(m.upto, fed, `asof3_holding_cut2_${i}`);
    } finally {
      maker.release(true);
    }
  });

  it('a connection that keeps its fresh tables, tidied after each read, does not grow them', async () => {
    const history = historyOf(13, 0);
    const whole = await dbs.fresh('asof3_kept');
    await feedProjections(whole.ds, [history]);
    const c = await whole.ds.connect();
    try {
      while (await makeCheckpoint(c, 60));
      const sizes = async () =>
        Number(
          (
            await c.query<{ n: string }>(
              `SELECT sum(pg_total_relation_size(oid))::text AS n FROM pg_class
                WHERE relnamespace = pg_my_temp_schema() AND relkind = 'r'`,
            )
          ).rows[0].n,
        );
      const at = (k: number) => history[Math.floor((k * history.length) / 7)].createdAt;
      // from a checkpoint and from nothing, as the api's connections read: tidied after each
      const read = async (k: number, checkpoints: boolean) => {
        await readAsOf(c, at(k), async (db) => db.query('SELECT count(*)::int AS n FROM flag_state'), {
          keep: true,
          checkpoints,
        });
        await tidyAsOf(c);
      };
      for (let round = 0; round < 2; round++) for (let k = 1; k < 7; k++) await read(k, k % 2 === 0);
      const first = await sizes();
      for (let round = 0; round < 3; round++) for (let k = 1; k < 7; k++) await read(k, k % 2 === 0);
      // the space of dead rows is used again: not tidied, the same 18 reads doubled the tables (2.29 → 4.95 MB)
      expect(await sizes()).toBeLessThanOrEqual(first * 1.2);
    } finally {
      c.release(true);
    }
  });

  it('the maker drops the checkpoint a read is using without either waiting on the other', async () => {
    const history = historyOf(14, 0);
    const late = history[Math.floor(history.length / 3)];
    const rest = history.filter((e) => e.id !== late.id);
    const whole = await dbs.fresh('asof3_dropped');
    await feedProjections(whole.ds, [rest]);
    // two connections in this test's pool: the read's, and the late event's then the maker's
    const c = await whole.ds.connect();
    try {
      while (await makeCheckpoint(c, 80));
      const [k] = (
        await c.query<{ upto: Date }>(
          `SELECT upto FROM flaglens_v1_as_of.checkpoints ORDER BY upto DESC LIMIT 1`,
        )
      ).rows;
      const at = new Date(k.upto.getTime() + DAY).toISOString();
      const ms = Date.parse(at);
      const cut = await dbs.fresh('asof3_dropped_cut');
      await feedProjections(cut.ds, [rest.filter((e) => Date.parse(e.createdAt) <= ms)]);
      const projects = [...PROJECTS, 'never-a-project'];
      const stamped = { ...late, id: Math.max(...history.map((e) => e.id)) + 1 };
      let remade: Awaited<ReturnType<typeof makeCheckpoint>> = null;
      const read = await readAsOf(c, at, async (db) => {
        // while the read holds the checkpoint it loaded: a late event makes it unusable, and the maker drops it
        // (and makes the next); a maker that waited for the read would never end, as the read waits for it
        await feedProjections(whole.ds, [[stamped]]);
        const maker = await whole.ds.connect();
        try {
          remade = await Promise.race([
            makeCheckpoint(maker, 80),
            new Promise<never>((_, reject) =>
              setTimeout(() => reject(new Error('the maker waited')), 20_000),
            ),
          ]);
        } finally {
          maker.release();
        }
        return everything(db, new Date(ms), projects);
      });
      expect(read.replay.checkpoint).toBe(k.upto.toISOString());
      // the read's snapshot: the checkpoint it chose, and the log without the late event
      expect(read.value).toEqual(await everything(cut.ds, new Date(ms), projects));
      expect(remade).not.toBeNull();
      const { rows } = await c.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM flaglens_v1_as_of.checkpoints WHERE upto = $1`,
        [k.upto],
      );
      expect(rows[0].n).toBe(0);
    } finally {
      c.release();
    }
  });
});
