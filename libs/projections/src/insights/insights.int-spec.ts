import { interleavedBatches, testEvent } from '@flaglens/testing/test-events';
import type { FlagEvent } from '@flaglens/contract';
import { Database } from '@flaglens/persistence';
import { projectionDatabases } from '@flaglens/testing/support/test-database';
import { appendEvents } from '../event-log/event-log.projection';
import { generateHistory } from '@flaglens/testing/generate-history';
import { IdentityReadModel } from '../identity/identity.read-model';
import { InsightsReadModel, mondayOf, USERS_SQL, type InstanceInsights } from './insights.read-model';
import { largeInstallation, largeInstallationSummary } from '@flaglens/testing/large-installation';
import { validateInsights } from '@flaglens/testing/insights-shape';
import { storeInsightsWeeks } from './insights.weeks';
import { feedProjections } from '@flaglens/testing/support/feed-projections';

/** A hand-written history: 2024-12-30 … 2026-01-01 (53 ISO weeks), expectations computed by hand below. */
let nextId = 1;
const ev = (at: string, type: string, o: Partial<FlagEvent> = {}): FlagEvent =>
  testEvent(nextId++, type, { createdAt: at, ...o });
const HAND: FlagEvent[] = [
  ev('2024-12-30T10:00:00.000Z', 'project-created', {
    project: 'alpha',
    data: { id: 'alpha', name: 'Alpha' },
  }),
  ev('2024-12-30T11:00:00.000Z', 'feature-created', {
    project: 'alpha',
    featureName: 'f1',
    data: { name: 'f1', type: 'release' },
  }),
  ev('2025-01-20T12:00:00.000Z', 'feature-environment-enabled', {
    project: 'alpha',
    featureName: 'f1',
    environment: 'production',
  }),
  ev('2025-01-06T09:00:00.000Z', 'user-created', { data: { id: 7, username: 'seven', rootRole: 2 } }),
  ev('2025-03-03T09:00:00.000Z', 'feature-created', {
    createdByUserId: 7,
    project: 'alpha',
    featureName: 'f2',
    data: { name: 'f2', type: 'experiment' },
  }),
  ev('2025-03-05T09:00:00.000Z', 'feature-stale-on', { project: 'alpha', featureName: 'f1' }),
  ev('2025-03-10T09:00:00.000Z', 'project-created', { project: 'beta', data: { id: 'beta', name: 'Beta' } }),
  ev('2025-03-12T09:00:00.000Z', 'feature-project-change', {
    project: 'beta',
    featureName: 'f2',
    data: { oldProject: 'alpha', newProject: 'beta' },
  }),
  ev('2025-05-05T09:00:00.000Z', 'feature-created', {
    createdByUserId: 7,
    project: 'beta',
    featureName: 'f3',
    data: { name: 'f3', type: 'kill-switch' },
  }),
  ev('2025-05-07T09:00:00.000Z', 'feature-archived', { project: 'beta', featureName: 'f3' }),
  ev('2025-05-20T09:00:00.000Z', 'feature-revived', { project: 'beta', featureName: 'f3' }),
  ev('2025-06-02T09:00:00.000Z', 'user-deleted', { preData: { id: 7, username: 'seven' } }),
  ev('2025-08-04T09:00:00.000Z', 'project-archived', { project: 'alpha' }),
  ev('2025-08-20T09:00:00.000Z', 'project-revived', { project: 'alpha' }),
  ev('2025-12-29T09:00:00.000Z', 'feature-environment-enabled', {
    project: 'beta',
    featureName: 'f2',
    environment: 'production',
  }),
  ev('2026-01-01T08:00:00.000Z', 'feature-created', {
    project: 'beta',
    featureName: 'f4',
    data: { name: 'f4', type: 'release' },
  }),
  ev('2026-01-01T09:00:00.000Z', 'client-metrics', {
    environment: 'production',
    data: {
      appName: 'app',
      environment: 'production',
      bucket: { start: '', stop: '', toggles: { f2: { yes: 3, no: 1 } } },
    },
  }),
];
const NOW = new Date('2026-01-01T12:00:00.000Z');

describe('instance insights projection and read model (real Postgres)', () => {
  const dbs = projectionDatabases();
  async function fresh(label: string) {
    const { ds } = await dbs.fresh(label);
    const identity = new IdentityReadModel(ds);
    return { ds, model: new InsightsReadModel(ds, (id) => identity.countMembersOfProjects(id)) };
  }
  afterAll(() => dbs.dropAll());

  let hand: InstanceInsights;
  let handModel: InsightsReadModel;
  beforeAll(async () => {
    const { ds, model } = await fresh('ins_hand');
    await feedProjections(ds, [HAND]);
    handModel = model;
    hand = await model.report(NOW);
  });

  const pf = (week: string) =>
    Object.fromEntries(
      hand.projectFlagTrends
        .filter((r) => r.week === week)
        .map((r) => [r.project, [r.total, r.active, r.stale, r.potentiallyStale, r.health]]),
    );
  const ttp = (week: string) =>
    Object.fromEntries(
      hand.projectFlagTrends.filter((r) => r.week === week).map((r) => [r.project, r.timeToProduction]),
    );

  it('one row per ISO week from the first event to today; week-year boundaries', () => {
    expect(hand.flagTrends).toHaveLength(53);
    const weeks = [...new Set(hand.projectFlagTrends.map((r) => r.week))];
    expect(weeks[0]).toBe('2025-01'); // first event Mon 2024-12-30
    expect(weeks.at(-1)).toBe('2026-01'); // 2025-12-29 and 2026-01-01
    expect(hand.flagTrends[0].date).toBe('2025-01-05T23:59:59.999Z'); // a complete week: its Sunday
    expect(hand.flagTrends.at(-1)!.date).toBe('2026-01-01T23:59:59.999Z'); // the current week: today
    expect(hand.environmentTypeTrends).toEqual([
      { week: '2025-04', date: '2025-01-26T23:59:59.999Z', environmentType: 'production', totalUpdates: 1 },
      { week: '2026-01', date: '2026-01-01T23:59:59.999Z', environmentType: 'production', totalUpdates: 2 },
    ]);
    expect(validateInsights(hand)).toEqual([]);
  });

  it('flags by hand: potentially stale after the lifetime, stale, a move, archive/revive', () => {
    // [total, active, stale, potentiallyStale, health]
    // 2025-01 (Sun 01-05): f1 release created 12-30, lifetime 40 d → potentially stale from 2025-02-08
    expect(pf('2025-01')).toEqual({ default: [0, 0, 0, 0, 100], alpha: [1, 1, 0, 0, 100] });
    // 2025-06 (Sun 02-09): f1 crossed its lifetime on 02-08
    expect(pf('2025-06')).toEqual({ default: [0, 0, 0, 0, 100], alpha: [1, 0, 0, 1, 0] });
    // 2025-11 (Sun 03-16): f1 stale (03-05) so not potentially stale; f2 created 03-03 moved to beta 03-12
    expect(pf('2025-11')).toEqual({
      default: [0, 0, 0, 0, 100],
      alpha: [1, 0, 1, 0, 0],
      beta: [1, 1, 0, 0, 100],
    });
    // 2025-16 (Sun 04-20): f2 (experiment, 40 d) potentially stale since 04-12
    expect(pf('2025-16').beta).toEqual([1, 0, 0, 1, 0]);
    // 2025-19 (Sun 05-11): f3 created 05-05 and archived 05-07 → not counted
    expect(pf('2025-19').beta).toEqual([1, 0, 0, 1, 0]);
    // 2025-21 (Sun 05-25): f3 revived 05-20 (kill-switch: no lifetime) → health round(100 − 50)
    expect(pf('2025-21').beta).toEqual([2, 1, 0, 1, 50]);
    // 2025-32 (Sun 08-10): alpha archived 08-04 → no row; 2025-34 (Sun 08-24): revived 08-20
    expect(Object.keys(pf('2025-32')).sort()).toEqual(['beta', 'default']);
    expect(pf('2025-34').alpha).toEqual([1, 0, 1, 0, 0]);
    // 2026-01 (today 01-01): f4 created today → beta 3 flags, 1 potentially stale: round(100 − 33.3)
    expect(pf('2026-01')).toEqual({
      default: [0, 0, 0, 0, 100],
      alpha: [1, 0, 1, 0, 0],
      beta: [3, 2, 0, 1, 67],
    });
    expect(hand.flagTrends.at(-1)).toEqual({
      date: '2026-01-01T23:59:59.999Z',
      total: 4,
      active: 2,
      stale: 1,
      potentiallyStale: 1,
    });
  });

  it('time to production by hand: release flags, first production enable after creation, whole days', () => {
    // f1 (release, created 2024-12-30T11:00) enabled in production 2025-01-20T12:00: 21 whole days
    expect(ttp('2025-03')).toEqual({ default: 0, alpha: 0 });
    expect(ttp('2025-04')).toEqual({ default: 0, alpha: 21 });
    // f2 is an experiment: its enable on 2025-12-29 does not count
    expect(ttp('2026-01')).toEqual({ default: 0, alpha: 21, beta: 0 });
  });

  it('lifecycle and creation/archive trends by hand (Unleash 7+): flags as they are now, per week', () => {
    const rows = (r: { week: string; date: string; project: string }) => [r.week, r.date, r.project];
    expect(hand.lifecycleTrends.map(rows)).toEqual(hand.projectFlagTrends.map(rows));
    expect(hand.creationArchiveTrends.map(rows)).toEqual(hand.projectFlagTrends.map(rows));
    const lc = (week: string) =>
      Object.fromEntries(
        hand.lifecycleTrends.filter((r) => r.week === week).map((r) => [r.project, r.newProductionFlags]),
      );
    const ca = (week: string) =>
      Object.fromEntries(
        hand.creationArchiveTrends
          .filter((r) => r.week === week)
          .map((r) => [r.project, [r.createdFlags, r.archivedFlags]]),
      );
    // f1 enabled in production on Monday 2025-01-20; f2 (now in beta, any type counts) on 2025-12-29
    expect(lc('2025-04')).toEqual({ default: 0, alpha: 1 });
    expect(lc('2025-05')).toEqual({ default: 0, alpha: 0 });
    expect(lc('2026-01')).toEqual({ default: 0, alpha: 0, beta: 1 });
    expect(ca('2025-01')).toEqual({ default: [{}, 0], alpha: [{ release: 1 }, 0] });
    // f3 archived on 2025-05-07 and revived: not archived now
    expect(ca('2025-19').beta).toEqual([{ 'kill-switch': 1 }, 0]);
    expect(ca('2026-01').beta).toEqual([{ release: 1 }, 0]);
  });

  it('creation/archive trends count the flags archived in the week, by type created', async () => {
    const { ds, model } = await fresh('ins_creation_archive');
    const at = (d: string) => `${d}T10:00:00.000Z`;
    const flag = (name: string, type: string, d: string) =>
      ev(at(d), 'feature-created', { project: 'g', featureName: name, data: { name, type } });
    const events = [
      ev(at('2025-03-03'), 'project-created', { project: 'g', data: { id: 'g', name: 'G' } }),
      flag('a', 'release', '2025-03-03'),
      flag('b', 'release', '2025-03-04'),
      flag('c', 'operational', '2025-03-05'),
      ev(at('2025-03-06'), 'feature-archived', { project: 'g', featureName: 'a' }),
      ev(at('2025-03-11'), 'feature-archived', { project: 'g', featureName: 'c' }),
    ];
    await feedProjections(ds, [events]);
    const r = await model.report(new Date('2025-03-20T00:00:00.000Z'));
    const g = r.creationArchiveTrends.filter((x) => x.project === 'g');
    expect(g.map((x) => [x.week, x.createdFlags, x.archivedFlags])).toEqual([
      ['2025-10', { operational: 1, release: 2 }, 1],
      ['2025-11', {}, 1],
      ['2025-12', {}, 0],
    ]);
    expect(validateInsights(r)).toEqual([]);
  });

  it('users (members) on the current week only: the creators of alpha and beta are their owners', () => {
    const users = hand.projectFlagTrends.filter((r) => r.users !== undefined);
    expect(users.map((r) => [r.week, r.project, r.users])).toEqual([
      ['2026-01', 'alpha', 1],
      ['2026-01', 'beta', 1],
      ['2026-01', 'default', 0],
    ]);
  });

  it('users by hand: created, active in the trailing 60 days, deleted', () => {
    const u = (d: string) => hand.userTrends.find((r) => r.date.startsWith(d));
    // admin only; user 7 is created 01-06
    expect(u('2025-01-05')).toMatchObject({ total: 1, active: 1, inactive: 0 });
    // user 7 exists, has authored nothing yet
    expect(u('2025-02-09')).toMatchObject({ total: 2, active: 1, inactive: 1 });
    // user 7 authored on 03-03
    expect(u('2025-03-16')).toMatchObject({ total: 2, active: 2, inactive: 0 });
    // user 7 deleted 06-02
    expect(u('2025-06-08')).toMatchObject({ total: 1, active: 1, inactive: 0 });
    // admin authored nothing between 2025-08-20 and 2025-12-29: inactive on 2025-12-28 (window from 10-30)
    expect(u('2025-12-28')).toMatchObject({ total: 1, active: 0, inactive: 1 });
    expect(u('2026-01-01')).toMatchObject({ total: 1, active: 1, inactive: 0 });
  });

  it('metrics by week and the flag`s project', () => {
    expect(hand.metricsSummaryTrends).toEqual([
      {
        week: '2026-01',
        project: 'beta',
        date: '2026-01-01T23:59:59.999Z',
        totalRequests: 4,
        totalYes: 3,
        totalNo: 1,
        totalApps: 1,
        totalFlags: 1,
        totalEnvironments: 1,
      },
    ]);
  });

  it('from/to select the rows whose date is in the range, inclusive', async () => {
    const r = await handModel.report(NOW, { from: '2025-03-16', to: '2025-03-16' });
    expect(r.flagTrends.map((x) => x.date)).toEqual(['2025-03-16T23:59:59.999Z']);
    expect(r.userTrends).toHaveLength(1);
    expect(r.projectFlagTrends.map((x) => x.project)).toEqual(['alpha', 'beta', 'default']);
    expect(r.projectFlagTrends.find((x) => x.project === 'alpha')).toMatchObject({ stale: 1 });
    expect((await handModel.report(NOW, { from: '2025-03-17', to: '2025-03-21' })).flagTrends).toEqual([]);
  });

  it('leaves out every row and figure of hidden (private, not visible to the caller) projects', async () => {
    const r = await handModel.report(NOW, { from: null, to: null }, ['beta']);
    expect(new Set(r.projectFlagTrends.map((x) => x.project))).toEqual(new Set(['default', 'alpha']));
    expect(r.projectFlagTrends).toEqual(hand.projectFlagTrends.filter((x) => x.project !== 'beta'));
    // the instance sums are those of the visible projects
    expect(r.flagTrends.at(-1)).toEqual({
      date: '2026-01-01T23:59:59.999Z',
      total: 1,
      active: 0,
      stale: 1,
      potentiallyStale: 0,
    });
    expect(r.metricsSummaryTrends).toEqual([]);
    // beta's production enable (2025-12-29) is gone; the SDK report without a project stays
    expect(r.environmentTypeTrends).toEqual([
      { week: '2025-04', date: '2025-01-26T23:59:59.999Z', environmentType: 'production', totalUpdates: 1 },
      { week: '2026-01', date: '2026-01-01T23:59:59.999Z', environmentType: 'production', totalUpdates: 1 },
    ]);
    expect(r.userTrends).toEqual(hand.userTrends);
  });

  it("a one-day range counts each week's active users as the whole report does", async () => {
    // a range's statement reads only the user-weeks whose spans can reach its first day (60 days back): a week's
    // figures must not depend on where the range starts (admin's last event before 12-29 is on 08-20: active
    // on the Sundays up to 10-12, from a user-week of 08-18)
    expect(hand.userTrends.filter((u) => u.active === 0).length).toBeGreaterThan(0);
    for (const u of hand.userTrends) {
      const day = u.date.slice(0, 10);
      expect((await handModel.report(NOW, { from: day, to: day })).userTrends).toEqual([u]);
    }
  });

  it('for any visibility set, the figures are those of the visible projects alone (generated history)', async () => {
    const END = '2026-06-01T12:00:00.000Z';
    const history = generateHistory({
      seed: 9,
      projects: 6,
      flagsPerProject: 20,
      events: 3000,
      weeks: 20,
      end: END,
    });
    const g = await fresh('ins_visibility');
    await feedProjections(g.ds, [history]);
    const all = await g.model.report(new Date(END));
    const projects = [...new Set(all.projectFlagTrends.map((x) => x.project))].sort();
    expect(projects.length).toBeGreaterThan(3);
    for (const hidden of [[projects[1]], [projects[0], projects[2]], projects.slice(1)]) {
      const r = await g.model.report(new Date(END), { from: null, to: null }, hidden);
      const visible = all.projectFlagTrends.filter((x) => !hidden.includes(x.project));
      expect(r.projectFlagTrends).toEqual(visible);
      expect(r.metricsSummaryTrends).toEqual(
        all.metricsSummaryTrends.filter((x) => !hidden.includes(x.project)),
      );
      for (const f of r.flagTrends) {
        const rows = visible.filter((x) => x.date === f.date);
        const sum = (k: 'total' | 'active' | 'stale' | 'potentiallyStale') =>
          rows.reduce((n, x) => n + x[k], 0);
        expect(f).toEqual({
          date: f.date,
          total: sum('total'),
          active: sum('active'),
          stale: sum('stale'),
          potentiallyStale: sum('potentiallyStale'),
        });
      }
      const updates = (x: InstanceInsights) =>
        x.environmentTypeTrends.reduce((n, e) => n + e.totalUpdates, 0);
      expect(updates(r)).toBeLessThanOrEqual(updates(all));
    }
  });

  it('users: the spans of activity count each week as a week-by-week count of the user-weeks does (3 years of 300 users)', async () => {
    // the week-by-week count, kept here as the reference: every user-week of the 9 weeks before each week
    const byWeek =
      USERS_SQL.slice(0, USERS_SQL.indexOf('r AS (')).replace(/,\s*$/, '') +
      `
SELECT to_char(w.d, 'YYYY-MM-DD') AS d,
       (SELECT count(*) FROM insights_users u
         WHERE u.created_at < w.e AND (u.deleted_at IS NULL OR u.deleted_at >= w.e))::int AS total,
       (SELECT count(DISTINCT a.user_id) FROM insights_user_weeks a JOIN insights_users u ON u.id = a.user_id
         WHERE a.week BETWEEN w.ws - 63 AND w.ws
           AND ((a.week < w.ws AND a.last_day >= w.d - 59) OR (a.week = w.ws AND a.first_day <= w.d))
           AND u.created_at < w.e AND (u.deleted_at IS NULL OR u.deleted_at >= w.e))::int AS active
  FROM weeks w WHERE w.inr ORDER BY w.ws`;
    const options = { seed: 5, events: 20_000, projects: 10, flags: 200, users: 300 };
    const { ds } = await fresh('ins_user_spans');
    await feedProjections(ds, [...largeInstallation(options)]);
    const end = largeInstallationSummary(options).to;
    const today = end.slice(0, 10);
    const counts = await ds.query<{ n: string }>(
      `SELECT count(*) AS n FROM insights_users WHERE deleted_at IS NOT NULL`,
    );
    expect(Number(counts[0].n)).toBeGreaterThan(0); // deleted users among them
    for (const [from, to] of [
      [null, null],
      ['2025-02-01', '2025-09-30'],
      [today, today],
    ]) {
      const p = [today, from, to, '2016-01-04'];
      const spans = (await ds.query<{ d: string; total: number; active: number }>(USERS_SQL, p)).map(
        ({ d, total, active }) => ({ d, total, active }),
      );
      expect(spans.length).toBeGreaterThan(0);
      expect(spans.some((r) => r.active > 0)).toBe(true);
      expect(spans).toEqual(await ds.query(byWeek, p));
    }
  });

  it('an event dated in year 1000 does not make the report 53,000 weeks long', async () => {
    const { ds } = await fresh('ins_far_past');
    await feedProjections(ds, [
      [...HAND, { ...testEvent(9_999, 'tag-created'), createdAt: '1000-01-01T00:00:00.000Z' }],
    ]);
    const identity = new IdentityReadModel(ds);
    const model = new InsightsReadModel(ds, (id) => identity.countMembersOfProjects(id), 60);
    const r = await model.report(NOW);
    expect(r.flagTrends).toHaveLength(60);
    // the last 53 weeks are the same as without the event; the 7 before them are empty weeks of 2024
    expect(r.flagTrends.slice(7)).toEqual(hand.flagTrends);
    expect(r.projectFlagTrends.filter((x) => x.week >= '2025-01')).toEqual(hand.projectFlagTrends);
  });

  it('replayed twice, and under random key interleavings and batch sizes, the report is the same', async () => {
    const END = '2026-06-01T12:00:00.000Z';
    const history = generateHistory({
      seed: 5,
      projects: 5,
      flagsPerProject: 40,
      events: 4000,
      weeks: 26,
      end: END,
    });
    const a = await fresh('ins_replay_a');
    await feedProjections(a.ds, [history]);
    const once = await a.model.report(new Date(END));
    expect(once.flagTrends.length).toBeGreaterThanOrEqual(26);
    expect(validateInsights(once)).toEqual([]);
    await feedProjections(a.ds, [history, history.slice(100, 900)]);
    expect(await a.model.report(new Date(END))).toEqual(once);
    const b = await fresh('ins_replay_b');
    await feedProjections(b.ds, interleavedBatches(history, 17, 150));
    expect(await b.model.report(new Date(END))).toEqual(once);
  });

  describe('stored weeks: the same report as the reference computation', () => {
    // a Wednesday: the current week has 3 days; 30 weeks of history before it
    const END = '2026-06-03T12:00:00.000Z';
    const history = generateHistory({
      seed: 3,
      projects: 6,
      flagsPerProject: 20,
      events: 3000,
      weeks: 30,
      end: END,
    });
    const created = history.find((e) => e.type === 'feature-created' && e.project !== 'default')!;
    let id = 900_000;
    const late = (at: string, type: string, o: Partial<FlagEvent> = {}): FlagEvent =>
      testEvent(id++, type, { createdAt: at, ...o });
    const daysBefore = (n: number, from = END) => new Date(Date.parse(from) - n * 86_400_000).toISOString();
    const extra: FlagEvent[] = [];
    /** events of an unknown type, stored in the event log only */
    const unknown: FlagEvent[] = [];
    let db: { ds: Database; model: InsightsReadModel };
    let reference: InsightsReadModel;

    /** One store, in its own transaction: the weeks it computed. */
    async function storeOnce(ds: Database, now: string, chunkWeeks?: number): Promise<number> {
      const c = await ds.connect();
      try {
        await c.query('BEGIN');
        const weeks = await storeInsightsWeeks(c, new Date(now), undefined, chunkWeeks);
        await c.query('COMMIT');
        return weeks;
      } finally {
        c.release();
      }
    }
    /** Stores until nothing is left to store, as the projector's job does: the weeks computed in all. */
    async function store(ds: Database, now: string): Promise<number> {
      let total = 0;
      for (let weeks = await storeOnce(ds, now); weeks > 0; weeks = await storeOnce(ds, now)) total += weeks;
      return total;
    }
    const marker = async (ds: Database) =>
      (
        await ds.query<{ valid_until: string; base_at: string }>(
          `SELECT valid_until::text, base_at::text FROM insights_weeks_stored`,
        )
      )[0];
    /** The stored path answers byte for byte as the reference, for the whole report, a range and hidden projects. */
    async function same(now: string, hidden: string[] = []): Promise<InstanceInsights> {
      const at = new Date(now);
      const r = await db.model.report(at, { from: null, to: null }, hidden);
      const ref = await reference.report(at, { from: null, to: null }, hidden);
      expect(r).toEqual(ref); // the readable difference, if any
      expect(JSON.stringify(r)).toBe(JSON.stringify(ref));
      const range = { from: daysBefore(60, now).slice(0, 10), to: daysBefore(10, now).slice(0, 10) };
      expect(JSON.stringify(await db.model.report(at, range, hidden))).toBe(
        JSON.stringify(await reference.report(at, range, hidden)),
      );
      return r;
    }
    const apply = async (events: FlagEvent[]) => {
      extra.push(...events);
      await feedProjections(db.ds, [events]);
    };

    beforeAll(async () => {
      db = await fresh('ins_stored');
      const identity = new IdentityReadModel(db.ds);
      reference = new InsightsReadModel(db.ds, (x) => identity.countMembersOfProjects(x), undefined, false);
      await feedProjections(db.ds, [history]);
    });

    it('stores the closed weeks once, in chunks, from the first event`s week; each chunk answers the reference', async () => {
      const [{ first }] = await db.ds.query<{ first: string }>(
        `SELECT (min(created_at) AT TIME ZONE 'UTC')::date::text AS first FROM event_log`,
      );
      const closed = Math.round((Date.parse('2026-06-01') - Date.parse(mondayOf(first))) / (7 * 86_400_000));
      expect(closed).toBeGreaterThan(25);
      const chunks: number[] = [];
      for (let weeks = await storeOnce(db.ds, END, 8); weeks > 0; weeks = await storeOnce(db.ds, END, 8)) {
        chunks.push(weeks);
        // a part stored, the rest computed: the same answer
        expect(JSON.stringify(await db.model.report(new Date(END)))).toBe(
          JSON.stringify(await reference.report(new Date(END))),
        );
      }
      expect(chunks).toEqual([
        ...Array.from({ length: Math.ceil(closed / 8) - 1 }, () => 8),
        closed - 8 * (Math.ceil(closed / 8) - 1),
      ]);
      expect(await store(db.ds, END)).toBe(0);
      expect(await marker(db.ds)).toEqual({ valid_until: '2026-06-01', base_at: '2026-06-01' });
      const [{ n }] = await db.ds.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM insights_project_weeks`,
      );
      expect(n).toBeGreaterThan(6 * 25);
      const r = await same(END);
      expect(r.flagTrends.length).toBeGreaterThanOrEqual(30);
      await same(END, [created.project!]);
      await same(END, ['default', 'sim-project-2']);
      await same(END, ['', 'sim-project-1']);
      // a clock before the stored weeks' end: the weeks from its own week on are computed
      await same(daysBefore(25));
    });

    it('a fresh flag whose lifetime ends in the weeks computed after the stored base is potentially stale there', async () => {
      // a release flag (40 days) created 41 days before the clock and unchanged since: its only delta is in a
      // stored week, and it turns potentially stale on a day of the current week, computed from the base
      const name = 'lifetime-ends-this-week';
      const project = 'sim-project-1';
      await apply([
        late(daysBefore(41), 'feature-created', {
          project,
          featureName: name,
          data: { name, description: null, type: 'release', project, stale: false, archived: false },
        }),
      ]);
      expect(await store(db.ds, END)).toBeGreaterThan(0);
      expect(await marker(db.ds)).toEqual({ valid_until: '2026-06-01', base_at: '2026-06-01' });
      // the current week's rows start from the base: the reference computes every week from the deltas
      await same(END);
      await same(END, [project]);
    });

    it('a late event dated in a past stored week invalidates from its week; storing again gives the same', async () => {
      await apply([
        late(daysBefore(70), 'feature-stale-on', {
          project: created.project,
          featureName: created.featureName,
        }),
      ]);
      const m = await marker(db.ds);
      expect(m.valid_until < '2026-04-01').toBe(true);
      await same(END);
      expect(await store(db.ds, END)).toBeGreaterThanOrEqual(10);
      await same(END);
    });

    it('an event of an unknown type dated before the first (not seen by the projection) adds its weeks', async () => {
      const c = await db.ds.connect();
      try {
        await c.query('BEGIN');
        const event = late('2025-09-01T10:00:00.000Z', 'some-future-event');
        unknown.push(event);
        await appendEvents(c, [{ event, knownType: false, topic: null, partition: null, offset: null }]);
        await c.query('COMMIT');
      } finally {
        c.release();
      }
      const r = await same(END);
      expect(r.flagTrends[0].date).toBe('2025-09-07T23:59:59.999Z');
      expect(await store(db.ds, END)).toBeGreaterThan(0);
      await same(END);
    });

    it('a feature-type lifetime change invalidates every week', async () => {
      await apply([
        late(daysBefore(1), 'feature-type-updated', { data: { id: 'release', lifetimeDays: 7 } }),
      ]);
      expect((await marker(db.ds)).valid_until).toBe('-infinity');
      await same(END);
      await store(db.ds, END);
      await same(END);
    });

    it('environment type change, a flag moved, a project deleted: current-state inputs read at read time', async () => {
      const [{ first }] = await db.ds.query<{ first: string | null }>(
        `SELECT min(day)::text AS first FROM insights_metrics WHERE feature = $1`,
        [created.featureName],
      );
      expect(first).not.toBeNull(); // the flag moved has SDK metrics in the stored weeks
      await apply([
        late(daysBefore(1), 'environment-updated', {
          environment: 'production',
          data: { name: 'production', type: 'development' },
        }),
        late(daysBefore(1), 'feature-project-change', {
          project: 'sim-project-4',
          featureName: created.featureName,
          data: { oldProject: created.project, newProject: 'sim-project-4' },
        }),
        late(daysBefore(1), 'project-deleted', { project: 'sim-project-5' }),
      ]);
      // the moved flag's metrics count under its new project in every week: the stored weeks from its first
      // metrics' week on are no longer valid
      expect((await marker(db.ds)).valid_until).toBe(mondayOf(first!));
      await same(END);
      await same(END, ['sim-project-4', '']);
      expect(await store(db.ds, END)).toBeGreaterThan(0);
      await same(END);
      await same(END, ['sim-project-4', '']);
      await apply([
        late(daysBefore(1), 'environment-deleted', {
          environment: 'development',
          data: null,
          preData: { name: 'development' },
        }),
      ]);
      // all in the current week: the stored weeks stay valid
      expect((await marker(db.ds)).valid_until).toBe('2026-06-01');
      await same(END);
      await same(END, ['sim-project-4']);
    });

    it('a week rolling over: computed until stored, then stored', async () => {
      const next = '2026-06-08T01:00:00.000Z';
      await apply([
        late('2026-06-07T10:00:00.000Z', 'feature-stale-off', {
          project: 'sim-project-4',
          featureName: created.featureName,
        }),
      ]);
      await same(next);
      expect(await store(db.ds, next)).toBe(1);
      expect(await marker(db.ds)).toEqual({ valid_until: '2026-06-08', base_at: '2026-06-08' });
      await same(next);
      await same(next, [created.project!]);
    });

    it('a rebuild (the same events into a new database) stores the same rows and answers the same', async () => {
      const next = '2026-06-08T01:00:00.000Z';
      const b = await fresh('ins_stored_rebuild');
      const c = await b.ds.connect();
      try {
        await c.query('BEGIN');
        await appendEvents(
          c,
          unknown.map((event) => ({ event, knownType: false, topic: null, partition: null, offset: null })),
        );
        await c.query('COMMIT');
      } finally {
        c.release();
      }
      await feedProjections(b.ds, interleavedBatches([...history, ...extra], 23, 400));
      await store(b.ds, next);
      const rows = (ds: Database) =>
        ds.query(`SELECT ws::text, project, total, stale, ps FROM insights_project_weeks ORDER BY 1, 2`);
      expect(await rows(b.ds)).toEqual(await rows(db.ds));
      expect(JSON.stringify(await b.model.report(new Date(next)))).toBe(
        JSON.stringify(await db.model.report(new Date(next))),
      );
    });
  });
});
