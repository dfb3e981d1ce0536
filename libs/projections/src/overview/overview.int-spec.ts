import type { FlagEvent } from '@flaglens/contract';
import { projectionDatabases, type TestDatabase } from '@flaglens/testing/support/test-database';
import { IdentityProjectAccessReader } from '../identity/project-access.read-model';
import { IdentityReadModel } from '../identity/identity.read-model';
import { generateHistory, prng } from '@flaglens/testing/generate-history';
import { interleavedBatches, testEvent } from '@flaglens/testing/test-events';
import { reduceFlagState } from '../flag-state/flag-state.logic';
import { healthRating, OVERVIEW_SQL, OverviewReadModel } from './overview.read-model';
import { OverviewReference } from '@flaglens/testing/overview-reference';
import { inCurrentWindow, inPastWindow, isPotentiallyStale } from './overview.logic';
import { feedProjections } from '@flaglens/testing/support/feed-projections';

/** Projections on real Postgres, applied as the projector does (event log first, one transaction per batch). */
const TABLES = [
  'flag_state',
  'environments',
  'feature_types',
  'projects',
  'project_environments',
  'project_activity_daily',
  'flag_sdk_usage',
  'project_sdk_usage',
  'identity_project_members',
  'identity_member_versions',
  'identity_favorites',
];
const DAY = 86_400_000;

/** The overview body, loosely typed for assertions. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Overview = Record<string, any>;

async function dump(db: TestDatabase): Promise<Record<string, unknown[]>> {
  const out: Record<string, unknown[]> = {};
  for (const t of TABLES) out[t] = await db.query(`SELECT to_jsonb(x)::text AS r FROM ${t} x ORDER BY 1`);
  return out;
}

describe('overview projections (real Postgres)', () => {
  const dbs = projectionDatabases();
  async function fresh(label: string) {
    const { db, ds } = await dbs.fresh(label);
    return {
      db,
      ds,
      model: new OverviewReference(ds, new IdentityProjectAccessReader(new IdentityReadModel(ds))),
    };
  }
  afterAll(() => dbs.dropAll());

  const END = '2026-11-22T09:00:00.000Z';
  const history = generateHistory({
    seed: 7,
    projects: 4,
    flagsPerProject: 40,
    events: 3000,
    weeks: 12,
    end: END,
  });

  async function overviews(model: OverviewReference): Promise<unknown[]> {
    const ids = ['default', 'sim-project-1', 'sim-project-2', 'sim-project-3'];
    return Promise.all(ids.map((id) => model.overview(id, new Date(END), 3)));
  }

  it('replaying the same events twice changes nothing; any interleaving of keys gives the same state', async () => {
    const a = await fresh('ov_replay_a');
    await feedProjections(a.ds, [history]);
    const once = await dump(a.db);
    const answerOnce = await overviews(a.model);
    await feedProjections(a.ds, [history]); // the event log stores each id once: projections see nothing new
    expect(await dump(a.db)).toEqual(once);

    for (const seed of [1, 2]) {
      const b = await fresh(`ov_interleave_${seed}`);
      await feedProjections(b.ds, interleavedBatches(history, seed, 200));
      expect(await dump(b.db)).toEqual(once);
      expect(await overviews(b.model)).toEqual(answerOnce);
    }
    // sanity: the history exercises the overview
    const o = answerOnce[1] as {
      stats: Record<string, number>;
      featureTypeCounts: unknown[];
      members: number;
    };
    expect(o.stats.projectActivityCurrentWindow).toBeGreaterThan(0);
    expect(o.featureTypeCounts.length).toBeGreaterThan(0);
    expect(o.members).toBeGreaterThan(0);
  });

  it('counts members, and those added in the window, as the identity read model does, archived projects too', async () => {
    const { ds, model } = await fresh('ov_members');
    const rich = generateHistory({
      seed: 11,
      projects: 4,
      flagsPerProject: 10,
      events: 3000,
      weeks: 12,
      end: END,
      rich: true,
    });
    // one project archived 20 days before the end: read as of then
    const archiveAt = new Date(Date.parse(END) - 20 * DAY).toISOString();
    const archive = testEvent(50_000_000, 'project-archived', {
      project: 'sim-project-2',
      data: { id: 'sim-project-2' },
      createdAt: archiveAt,
    });
    await feedProjections(ds, [rich, [archive]]);
    const identity = new IdentityReadModel(ds);
    const ids = ['default', 'sim-project-1', 'sim-project-2', 'sim-project-3'];
    const rnd = prng(4);
    let archived = 0;
    let added = 0;
    for (let i = 0; i < 6; i++) {
      const now = new Date(Date.parse(END) - (i === 0 ? 0 : Math.floor(rnd() * 60 * DAY)));
      for (const id of ids) {
        const s = await model.snapshot(id, now);
        if (!s) continue;
        const body = s.body as { members: number; stats: { projectMembersAddedCurrentWindow: number } };
        // an archived project is read as of its archive instant
        const archivedAt = (
          await ds.query<{ at: Date | null }>('SELECT archived_at AS at FROM projects WHERE id = $1', [id])
        )[0]?.at;
        const readAt = archivedAt && archivedAt < now ? archivedAt : now;
        if (readAt !== now) archived++;
        const since = new Date(readAt.getTime() - 30 * DAY);
        expect([id, body.members]).toEqual([id, await identity.countProjectMembers(id)]);
        expect([id, body.stats.projectMembersAddedCurrentWindow]).toEqual([
          id,
          await identity.countProjectMembersAddedSince(id, since),
        ]);
        added += body.stats.projectMembersAddedCurrentWindow;
      }
    }
    // sanity: the history exercises both
    expect(added).toBeGreaterThan(0);
    expect(archived).toBeGreaterThan(0);
  });

  it('activity from day buckets plus exact edge days equals an exact count, at any read time', async () => {
    const { db, ds, model } = await fresh('ov_buckets');
    await feedProjections(ds, interleavedBatches(history, 5, 200));
    const rnd = prng(99);
    for (let i = 0; i < 12; i++) {
      const now = new Date(Date.parse(END) - Math.floor(rnd() * 70 * DAY));
      const c = new Date(now.getTime() - 30 * DAY).toISOString();
      const p = new Date(now.getTime() - 60 * DAY).toISOString();
      const [exact] = await db.query<{ cur: number; past: number }>(
        `SELECT count(*) FILTER (WHERE created_at >= $2)::int AS cur,
                count(*) FILTER (WHERE created_at BETWEEN $3 AND $2)::int AS past
           FROM event_log WHERE project = $1`,
        ['sim-project-1', c, p],
      );
      const o = (await model.overview('sim-project-1', now, null)) as { stats: Record<string, number> };
      expect([o.stats.projectActivityCurrentWindow, o.stats.projectActivityPastWindow]).toEqual([
        exact.cur,
        exact.past,
      ]);
    }
  });

  it('agrees with the pure rules applied to the pure flag-state reduction, at any read time', async () => {
    const { ds, model } = await fresh('ov_model');
    await feedProjections(ds, interleavedBatches(history, 8, 200));
    const flags = reduceFlagState(new Map(), history).rows.filter((f) => !f.deleted);
    const lifetimes: Record<string, number | null> = {
      release: 40,
      experiment: 40,
      operational: 7,
      'kill-switch': null,
      permission: null,
    };
    const rnd = prng(5);
    for (let i = 0; i < 8; i++) {
      const now = new Date(Date.parse(END) - Math.floor(rnd() * 80 * DAY));
      for (const project of ['default', 'sim-project-2']) {
        const mine = flags.filter((f) => f.project === project);
        const live = mine.filter((f) => f.archivedAt === null);
        const archived = mine.filter((f) => f.archivedAt !== null);
        const ps = live.filter((f) =>
          isPotentiallyStale(f.createdAt, lifetimes[f.type], f.stale, now),
        ).length;
        const counts = new Map<string, number>();
        for (const f of live) counts.set(f.type, (counts.get(f.type) ?? 0) + 1);
        const o = (await model.overview(project, now, null)) as {
          stats: Record<string, number>;
          health: number;
          featureTypeCounts: unknown[];
        };
        expect({ ...o.stats, health: o.health, featureTypeCounts: o.featureTypeCounts }).toMatchObject({
          createdCurrentWindow: live.filter((f) => inCurrentWindow(f.createdAt, now)).length,
          createdPastWindow: live.filter((f) => inPastWindow(f.createdAt, now)).length,
          archivedCurrentWindow: archived.filter((f) => inCurrentWindow(f.archivedAt!, now)).length,
          archivedPastWindow: archived.filter((f) => inPastWindow(f.archivedAt!, now)).length,
          health: healthRating(live.length, live.filter((f) => f.stale).length, ps),
          featureTypeCounts: [...counts]
            .sort(([a], [b]) => (a < b ? -1 : 1))
            .map(([type, count]) => ({ type, count })),
        });
      }
    }
  });

  it('time to production, environments, onboarding and archived projects follow semantics §3.3, §3.7, §3.8', async () => {
    const { ds, model } = await fresh('ov_lifecycle');
    let id = 0;
    const T0 = Date.parse('2026-03-01T12:00:00.000Z');
    const e = (type: string, hours: number, o: Partial<FlagEvent> = {}): FlagEvent => ({
      id: ++id,
      createdAt: new Date(T0 + hours * 3_600_000).toISOString(),
      type,
      createdBy: 'x',
      createdByUserId: 5,
      environment: null,
      project: 'lc',
      featureName: null,
      data: null,
      preData: null,
      tags: null,
      ...o,
    });
    const flag = (name: string, type: string, h: number) =>
      e('feature-created', h, { featureName: name, data: { type } });
    const enable = (name: string, env: string, h: number) =>
      e('feature-environment-enabled', h, { featureName: name, environment: env });
    const now = new Date(T0 + 100 * 24 * 3_600_000);
    const read = async () => (await model.overview('lc', now, 5)) as Overview;

    await feedProjections(ds, [[e('project-created', 0, { data: { id: 'lc', name: 'Lifecycle' } })]]);
    let o = await read();
    // no environment list: every environment enabled at creation (the seeded `default` is disabled)
    expect(o.environments).toEqual([{ environment: 'development' }, { environment: 'production' }]);
    expect(o.onboardingStatus).toEqual({ status: 'onboarding-started' });
    expect(o.stats.avgTimeToProdCurrentWindow).toBe(0);
    expect(o.members).toBe(1);

    await feedProjections(ds, [
      [
        e('environment-created', 1, {
          project: null,
          data: { name: 'qa', type: 'production', sortOrder: 50, enabled: true },
        }),
        flag('r1', 'release', 2),
        enable('r1', 'development', 3), // not production
        enable('r1', 'production', 2 + 24 * 2 + 5), // 2 days 5 h → 2
        enable('r1', 'default', 2 + 24 * 5), // later: the earliest counts
        flag('r2', 'release', 10),
        enable('r2', 'qa', 10 + 24 * 3 + 23), // production-type env created after the project → 3 days
        e('feature-archived', 200, { featureName: 'r2' }), // archived flags still count
        flag('x1', 'experiment', 11),
        enable('x1', 'production', 12), // not a release flag
        flag('r3', 'release', 20),
        enable('r3', 'production', 20), // same instant: not strictly after creation
      ],
    ]);
    o = await read();
    expect(o.stats.avgTimeToProdCurrentWindow).toBe(2.5); // (2 + 3) / 2
    expect(o.environments).toEqual([{ environment: 'development' }, { environment: 'production' }]); // qa came later
    expect(o.onboardingStatus).toEqual({ status: 'first-flag-created', feature: 'r1' });

    // the environment type is read at read time: qa no longer production → r2 drops out
    await feedProjections(ds, [
      [e('environment-updated', 300, { project: null, data: { name: 'qa', type: 'test' } })],
    ]);
    expect((await read()).stats.avgTimeToProdCurrentWindow).toBe(2);

    // SDK metrics for an archived flag onboard the project; for a deleted flag they do not
    await feedProjections(ds, [
      [
        e('client-metrics', 301, {
          project: null,
          data: { appName: 'a', bucket: { start: 0, stop: 1, toggles: { r2: { yes: 1, no: 0 } } } },
        }),
      ],
    ]);
    expect((await read()).onboardingStatus).toEqual({ status: 'onboarded' });
    await feedProjections(ds, [[e('feature-deleted', 302, { featureName: 'r2' })]]);
    expect((await read()).onboardingStatus).toEqual({ status: 'first-flag-created', feature: 'r1' });

    // environment links, default strategy; favourites per caller
    await feedProjections(ds, [
      [
        e('project-environment-added', 303, { environment: 'qa' }),
        e('project-environment-removed', 304, { environment: 'development' }),
        e('default-strategy-updated', 305, {
          environment: 'qa',
          data: { name: 'flexibleRollout', constraints: [] },
        }),
        e('project-favorited', 306, { createdByUserId: 5 }),
      ],
    ]);
    o = await read();
    expect(o.environments).toEqual([
      { environment: 'qa', defaultStrategy: { name: 'flexibleRollout', constraints: [] } },
      { environment: 'production' },
    ]);
    expect(o.favorite).toBe(true);
    expect(((await model.overview('lc', now, 6)) as Overview).favorite).toBe(false);

    // an archived project answers 200 with archivedAt, read as of its archive time (frozen)
    await feedProjections(ds, [
      [
        e('feature-archived', 400, { featureName: 'r1' }),
        e('feature-archived', 400, { featureName: 'x1' }),
        e('feature-archived', 400, { featureName: 'r3' }),
        e('project-archived', 401),
      ],
    ]);
    o = await read();
    expect(o.archivedAt).toBe(new Date(T0 + 401 * 3_600_000).toISOString());
    expect(Object.keys(o).slice(11, 14)).toEqual(['updatedAt', 'archivedAt', 'createdAt']);
    const later = (await model.overview('lc', new Date(now.getTime() + 365 * 24 * 3_600_000), 5)) as Overview;
    expect(later.stats).toEqual(o.stats);
    await feedProjections(ds, [[e('project-revived', 402)]]);
    expect('archivedAt' in ((await read()) as object)).toBe(false);
    await feedProjections(ds, [[e('project-deleted', 403)]]);
    expect(await model.overview('lc', now, 5)).toBeNull();
  });

  it('window edges: an event exactly at now−30d counts in both windows, at now−60d in the past one (§3.3)', async () => {
    const { ds, model } = await fresh('ov_edges');
    const now = new Date('2026-11-22T09:01:00.000Z');
    const at = (msBefore: number) => new Date(now.getTime() - msBefore).toISOString();
    let id = 0;
    const e = (type: string, createdAt: string, featureName: string | null, project = 'edge'): FlagEvent => ({
      id: ++id,
      createdAt,
      type,
      createdBy: 'x',
      createdByUserId: 9,
      environment: null,
      project,
      featureName,
      data: type === 'feature-created' ? { type: 'kill-switch' } : null,
      preData: null,
      tags: null,
    });
    await feedProjections(ds, [
      [
        e('project-created', at(90 * DAY), null),
        e('feature-created', at(30 * DAY), 'c30'), // both windows (>= c, and BETWEEN p AND c)
        e('feature-created', at(30 * DAY - 1), 'c30-1'), // current only
        e('feature-created', at(60 * DAY), 'c60'), // past only (inclusive)
        e('feature-created', at(60 * DAY + 1), 'c60+1'), // neither
        e('feature-created', at(70 * DAY), 'a'),
        e('feature-archived', at(30 * DAY), 'a'),
        e('feature-created', at(70 * DAY), 'b'),
        e('feature-archived', at(60 * DAY), 'b'),
        e('feature-created', at(70 * DAY), 'gone'),
        e('feature-archived', at(1 * DAY), 'gone'),
        e('feature-deleted', at(1 * DAY), 'gone'), // deleted flags count nowhere
      ],
    ]);
    const o = (await model.overview('edge', now, null)) as { stats: Record<string, number> };
    expect(o.stats.createdCurrentWindow).toBe(2);
    expect(o.stats.createdPastWindow).toBe(2);
    expect(o.stats.archivedCurrentWindow).toBe(1);
    expect(o.stats.archivedPastWindow).toBe(2);
    // activity: every event of the project, exact timestamps, same inclusive edges
    // current (>= now-30d): c30, c30-1, archive a, archive+delete gone = 5; past: c30, c60, archive a, archive b = 4
    expect(o.stats.projectActivityCurrentWindow).toBe(5);
    expect(o.stats.projectActivityPastWindow).toBe(4);
    expect(o.stats.projectMembersAddedCurrentWindow).toBe(0); // the creator was added 90 days ago
  });

  it('health and potentially-stale move with the clock alone; lifetimes follow feature-type-updated', async () => {
    const { ds, model } = await fresh('ov_health');
    const created = '2026-01-01T00:00:00.000Z';
    const mk = (id: number, type: string, extra: Partial<FlagEvent>): FlagEvent => ({
      id,
      createdAt: created,
      type,
      createdBy: 'x',
      createdByUserId: null,
      environment: null,
      project: 'h',
      featureName: null,
      data: null,
      preData: null,
      tags: null,
      ...extra,
    });
    await feedProjections(ds, [
      [
        mk(1, 'project-created', { data: { id: 'h', name: 'H' } }),
        mk(2, 'feature-created', { featureName: 'op', data: { type: 'operational' } }), // lifetime 7 days
        mk(3, 'feature-created', { featureName: 'rel', data: { type: 'release' } }), // lifetime 40 days
        mk(4, 'feature-created', { featureName: 'ks', data: { type: 'kill-switch' } }), // no lifetime
        mk(5, 'feature-created', { featureName: 'st', data: { type: 'kill-switch' } }),
        mk(6, 'feature-stale-on', { featureName: 'st' }),
      ],
    ]);
    const health = async (iso: string) =>
      ((await model.overview('h', new Date(iso), null)) as { health: number }).health;
    const day = (n: number) => new Date(Date.parse(created) + n * DAY).toISOString();
    expect(await health(day(6))).toBe(75); // 1 stale of 4
    expect(await health(day(7))).toBe(50); // exactly 7×24 h: op potentially stale (>=)
    expect(await health(new Date(Date.parse(day(7)) - 1).toISOString())).toBe(75);
    expect(await health(day(40))).toBe(25); // rel too
    await feedProjections(ds, [
      [mk(7, 'feature-type-updated', { project: null, data: { id: 'release', lifetimeDays: 0 } })],
    ]);
    expect(await health(day(40))).toBe(50); // 0 → no lifetime
    await feedProjections(ds, [[mk(8, 'feature-archived', { featureName: 'op' })]]);
    expect(await health(day(40))).toBe(67); // 1 stale of 3 → 66.67 → 67
  });

  it('technicalDebt is 100 − health; linkTemplates follow project-updated (Unleash 7+), replayed and interleaved', async () => {
    const at = (n: number) => new Date(Date.parse('2026-01-01T00:00:00.000Z') + n * 1000).toISOString();
    const mk = (id: number, type: string, extra: Partial<FlagEvent>): FlagEvent => ({
      ...testEvent(id, type, { project: 'lt', ...extra }),
      createdAt: at(id),
    });
    const templates = [
      { title: 'Code', urlTemplate: 'https://example.com/{{project}}/{{feature}}' },
      { title: null, urlTemplate: 'https://example.com/b' },
    ];
    const events = [
      mk(1, 'project-created', { data: { id: 'lt', name: 'LT', linkTemplates: templates } }),
      mk(2, 'feature-created', { featureName: 'a', data: { type: 'kill-switch' } }),
      mk(3, 'feature-created', { featureName: 'b', data: { type: 'kill-switch' } }),
      mk(4, 'feature-stale-on', { featureName: 'b' }),
      mk(5, 'project-updated', { data: { id: 'lt', name: 'LT', linkTemplates: templates } }),
      mk(6, 'project-updated', { data: { id: 'lt', name: 'LT2' } }), // a 6.x update keeps them
      mk(7, 'project-created', { project: 'other', data: { id: 'other', name: 'O' } }),
    ];
    const read = async (m: OverviewReference, id: string) =>
      (await m.overview(id, new Date(at(100)), null)) as Overview;
    const a = await fresh('ov_link_templates');
    await feedProjections(a.ds, [events.slice(0, 1)]);
    expect((await read(a.model, 'lt')).linkTemplates).toEqual([]); // creation stores none (8.2.0)
    await feedProjections(a.ds, [events.slice(1)]);
    const o = await read(a.model, 'lt');
    expect(o).toMatchObject({ name: 'LT2', linkTemplates: templates, health: 50, technicalDebt: 50 });
    const keys = Object.keys(o);
    expect(keys.slice(keys.indexOf('featureNaming'), keys.indexOf('favorite') + 1)).toEqual([
      'featureNaming',
      'linkTemplates',
      'defaultStickiness',
      'health',
      'technicalDebt',
      'favorite',
    ]);
    expect(await read(a.model, 'other')).toMatchObject({ linkTemplates: [], health: 100, technicalDebt: 0 });
    const once = await dump(a.db);
    await feedProjections(a.ds, [events]); // replayed: nothing changes
    expect(await dump(a.db)).toEqual(once);
    const b = await fresh('ov_link_templates_b');
    await feedProjections(b.ds, interleavedBatches(events, 3, 2));
    expect(await dump(b.db)).toEqual(once);
    expect(await read(b.model, 'lt')).toEqual(o);
  });

  it('8.x onboarding: SDK traffic without an enabled flag is sdk-connected; an enable makes it onboarded', async () => {
    const { ds } = await fresh('ov_sdk_connected');
    const at = (n: number) => new Date(Date.parse('2026-02-01T00:00:00.000Z') + n * 1000).toISOString();
    const mk = (id: number, type: string, extra: Partial<FlagEvent> = {}): FlagEvent => ({
      ...testEvent(id, type, { project: 'sc', ...extra }),
      createdAt: at(id),
    });
    const model = new OverviewReadModel(ds);
    const now = new Date(at(1000));
    // the release the topic said (the projector's event-log projection writes it), read in the same statement
    const following = async (release: string | null) => {
      await ds.query(`DELETE FROM unleash_release`);
      if (release !== null)
        await ds.query(`INSERT INTO unleash_release (release, event_id) VALUES ($1, 1)`, [release]);
    };
    const status = async () => (await model.snapshot('sc', now))!.body.onboardingStatus;
    await feedProjections(ds, [
      [
        mk(1, 'project-created', { data: { id: 'sc', name: 'SC' } }),
        mk(2, 'feature-created', { featureName: 'f', data: { type: 'release' } }),
        mk(3, 'client-register', { data: { appName: 'app', project: 'sc' } }),
      ],
    ]);
    for (const r of ['6', '7']) {
      await following(r);
      expect(await status()).toEqual({ status: 'onboarded' });
    }
    for (const r of ['8', null, '9']) {
      await following(r);
      expect(await status()).toEqual({ status: 'sdk-connected' });
    }
    // the state kept by a cache, then the activity alone: an enable is an event of the project's activity
    await following('8');
    const { state } = await model.read('sc', now);
    await feedProjections(ds, [
      [mk(4, 'feature-environment-enabled', { featureName: 'f', environment: 'development' })],
    ]);
    expect((await model.read('sc', now, false, state!)).snapshot!.body.onboardingStatus).toEqual({
      status: 'onboarded',
    });
    expect(await status()).toEqual({ status: 'onboarded' });
    await following('6');
    expect(await status()).toEqual({ status: 'onboarded' });
  });

  it("reads SDK usage of the project's flags by key, not by scanning the usage of every flag", async () => {
    // the overview is read on every miss: its cost must follow the project's size, not the instance's. With
    // SDK usage of a few thousand flags, the plan the read pool keeps (generic, after five executions) hashed
    // the whole usage table on every read: 0.2 of the statement's 0.58 ms on the miss load's data
    // (docs/performance-reads.md)
    const { db } = await fresh('ov_sdk_plan');
    await db.query(
      `INSERT INTO flag_sdk_usage (feature_name, first_seen_at, last_seen_at)
       SELECT 'other-' || i, now(), now() FROM generate_series(1, 2000) i`,
    );
    await db.query(
      `INSERT INTO flag_state (name, project, type, stale, created_at, deleted)
       SELECT 'f-' || i, 'p-' || (i % 1000), 'release', false, now(), false FROM generate_series(1, 10000) i`,
    );
    await db.query('ANALYZE');
    await db.query('SET plan_cache_mode = force_generic_plan');
    await db.query(`PREPARE ov(text, timestamptz, boolean) AS ${OVERVIEW_SQL}`);
    const [{ 'QUERY PLAN': plan }] = await db.query<{ 'QUERY PLAN': unknown }>(
      `EXPLAIN (FORMAT JSON) EXECUTE ov('p-1', now(), false)`,
    );
    const scans: string[] = [];
    const walk = (n: Record<string, unknown>): void => {
      if (n['Relation Name'] === 'flag_sdk_usage') scans.push(String(n['Node Type']));
      for (const c of (n.Plans as Record<string, unknown>[] | undefined) ?? []) walk(c);
    };
    walk((plan as { Plan: Record<string, unknown> }[])[0].Plan);
    expect(scans.length).toBeGreaterThan(0);
    expect(scans.filter((t) => !/Index/.test(t))).toEqual([]);
  });
});
