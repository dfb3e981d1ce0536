import type { FlagEvent } from '@flaglens/contract';
import { testEvent } from '@flaglens/testing/test-events';
import { readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createToken } from '@flaglens/testing/support/cli';
import type { TestDatabase } from '@flaglens/testing/support/test-database';
import { apiGet } from '@flaglens/testing/support/openapi';
import { startStack, type Stack } from '@flaglens/testing/support/stack';
import { waitFor } from '@flaglens/testing/support/wait-for';

const SAMPLE = join(__dirname, 'fixtures', 'reference-sample');
const PINNED = '2026-11-22T09:01:00Z';

interface Captured {
  request: { method: string; path: string; as?: string };
  status: number;
  contentType: string;
  body: Record<string, unknown>;
}
interface OverviewBody {
  name: string;
  featureTypeCounts: unknown[];
  environments: unknown[];
  members: number;
  stats: Record<string, number>;
  onboardingStatus: unknown;
}
const load = (file: string): Captured => JSON.parse(readFileSync(join(SAMPLE, 'responses', file), 'utf8'));

describe('GET /api/admin/projects/{projectId}/overview (running apps, real Kafka and Postgres)', () => {
  let stack: Stack;
  let db: TestDatabase;
  let port: number;
  let env: Record<string, string>;
  const publish = (file: string) => stack.publish(file);
  const stored = async () =>
    Number((await db.query<{ n: string }>('SELECT count(*) AS n FROM event_log'))[0].n);
  let asAdmin: Record<string, string>;
  let asAlice: Record<string, string>;

  beforeAll(async () => {
    stack = await startStack('overview_e2e', { FLAGLENS_CLOCK: PINNED });
    ({ db, port, env } = stack);
    expect(await publish(join(SAMPLE, 'events.ndjson'))).toMatch(/sent 101 event\(s\)/);
    expect(await publish(join(SAMPLE, 'sdk-events.ndjson'))).toMatch(/sent 4 event\(s\)/);
    await stack.waitForEvents(105);
    asAdmin = { authorization: await createToken(env, 'admin') };
    asAlice = { authorization: await createToken(env, 'alice@example.com') };
  });

  afterAll(async () => {
    await stack?.stop();
  });

  it('answers the overview of default as the reference did, field by field (documented deviations)', async () => {
    const captured = load('overview/default.json');
    const res = await apiGet(port, captured.request.path, asAdmin);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe(captured.contentType);
    const body = res.json() as Record<string, unknown>;
    // the 6.10.1 capture with what 7+ adds, where 8.2.0 puts it: linkTemplates after featureNaming (none set),
    // technicalDebt (100 − health) after health
    const with7 = Object.fromEntries(
      Object.entries(captured.body as Record<string, unknown>).flatMap(([k, v]) =>
        k === 'featureNaming'
          ? [
              [k, v],
              ['linkTemplates', []],
            ]
          : k === 'health'
            ? [
                [k, v],
                ['technicalDebt', 100 - (v as number)],
              ]
            : [[k, v]],
      ),
    );
    const expected: Record<string, unknown> = {
      ...with7,
      // Deviation (README): the seeded `default` project has no creation event; flaglens takes the time of
      // the instance's first event (08:52:03.265Z, a built-in strategy-created) where the reference has its
      // migration's insert time 116 ms later. Not derivable from the stream.
      createdAt: '2026-11-22T08:52:03.265Z',
      // Deviation (README, semantics §7.4/G10): the reference's updatedAt is the time of its last hourly
      // health-job run (09:00:12.781Z); flaglens answers the time of the project's latest event (id 98).
      updatedAt: '2026-11-22T08:52:52.191Z',
    };
    // every field, in the reference's key order
    expect(Object.keys(body)).toEqual(Object.keys(with7));
    for (const key of Object.keys(expected)) expect({ [key]: body[key] }).toEqual({ [key]: expected[key] });
    expect(res.text).toBe(JSON.stringify(expected));
  });

  it('?archived=true counts archived flags in featureTypeCounts, as the reference (_archived-true)', async () => {
    const captured = load('overview/_archived-true/default.json');
    const body = (await apiGet(port, captured.request.path, asAdmin)).json() as Record<string, unknown>;
    expect(body.featureTypeCounts).toEqual(captured.body.featureTypeCounts);
    expect(body.stats).toEqual(captured.body.stats);
    expect(body.environments).toEqual(captured.body.environments);
  });

  it('documents the operation in the OpenAPI document', async () => {
    const docs = (await apiGet(port, '/docs-json')).json() as { paths: Record<string, unknown> };
    expect(Object.keys(docs.paths)).toContain('/api/admin/projects/{projectId}/overview');
  });

  it('answers the project status of Unleash 8.2.0 from the same projections (and zeros for an unknown id)', async () => {
    const events = readFileSync(join(SAMPLE, 'events.ndjson'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as FlagEvent);
    const r = await apiGet(port, '/api/admin/projects/default/status', asAdmin);
    expect(r.status).toBe(200);
    const status = r.json() as {
      resources: Record<string, number>;
      activityCountByDate: { date: string; count: number }[];
      health: { current: number };
      technicalDebt: { current: number };
      lifecycleSummary: Record<string, Record<string, number | null>>;
      staleFlags: { total: number };
    };
    // keys in Unleash's order
    expect(Object.keys(status)).toEqual([
      'resources',
      'activityCountByDate',
      'health',
      'technicalDebt',
      'lifecycleSummary',
      'staleFlags',
    ]);
    // the project's own events per UTC day (all of the sample's are within the year before the clock)
    const perDay = new Map<string, number>();
    for (const e of events.filter((x) => x.project === 'default'))
      perDay.set(e.createdAt.slice(0, 10), (perDay.get(e.createdAt.slice(0, 10)) ?? 0) + 1);
    expect(status.activityCountByDate).toEqual([...perDay].sort().map(([date, count]) => ({ date, count })));
    // the tokens that name default: created, less the one deleted (an update changes only its expiry); its
    // segments are global
    const naming = (e: FlagEvent, d: unknown) =>
      e.type.startsWith('api-token-') && ((d as { projects?: string[] })?.projects ?? []).includes('default');
    const created = events.filter((e) => e.type === 'api-token-created' && naming(e, e.data)).length;
    const deleted = events.filter((e) => e.type === 'api-token-deleted' && naming(e, e.preData)).length;
    expect(deleted).toBe(1);
    expect(status.resources).toEqual({
      members: expect.any(Number),
      apiTokens: created - deleted,
      segments: 0,
    });
    expect(status.health.current + status.technicalDebt.current).toBe(100);
    const [{ archived }] = await db.query<{ archived: number }>(
      `SELECT count(*)::int AS archived FROM flag_state WHERE project = 'default' AND archived_at IS NOT NULL AND NOT deleted`,
    );
    expect(status.lifecycleSummary.archived).toEqual({ currentFlags: archived, last30Days: archived });
    expect(status.lifecycleSummary.initial.currentFlags).toBeGreaterThan(0);

    const unknown = await apiGet(port, '/api/admin/projects/no-such-project/status', asAdmin);
    expect(unknown.json()).toEqual({
      resources: { members: 0, apiTokens: 0, segments: 0 },
      activityCountByDate: [],
      health: { current: 100 },
      technicalDebt: { current: 0 },
      lifecycleSummary: {
        initial: { averageDays: null, currentFlags: 0 },
        preLive: { averageDays: null, currentFlags: 0 },
        live: { averageDays: null, currentFlags: 0 },
        completed: { averageDays: null, currentFlags: 0 },
        archived: { currentFlags: 0, last30Days: 0 },
      },
      staleFlags: { total: 0 },
    });
  });

  it('answers the personal dashboard of Unleash 8.2.0, and a project on it', async () => {
    const events = readFileSync(join(SAMPLE, 'events.ndjson'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as FlagEvent);
    const r = await apiGet(port, '/api/admin/personal-dashboard', asAdmin);
    expect(r.status).toBe(200);
    const d = r.json() as {
      projects: { id: string; featureCount: number; health: number; technicalDebt: number }[];
      flags: { name: string; project: string; type: string }[];
      projectOwners: unknown[];
      admins: { id: number; username?: string; imageUrl: string }[];
    };
    expect(Object.keys(d)).toEqual(['projects', 'flags', 'projectOwners', 'admins']);
    // default: every user with a root role holds its root-role row there
    const [{ live }] = await db.query<{ live: number }>(
      `SELECT count(*)::int AS live FROM flag_state WHERE project = 'default' AND archived_at IS NULL AND NOT deleted`,
    );
    expect(d.projects.find((p) => p.id === 'default')).toMatchObject({ featureCount: live });
    for (const p of d.projects) expect(p.health + p.technicalDebt).toBe(100);
    // the flags the admin created (all of the sample's) that are not archived, newest first
    const [{ mine }] = await db.query<{ mine: string[] }>(
      `SELECT coalesce(array_agg(name ORDER BY created_at DESC, name COLLATE "C"), '{}') AS mine FROM flag_state
        WHERE archived_at IS NULL AND NOT deleted AND name IN (SELECT feature_name FROM event_log
          WHERE type = 'feature-created' AND created_by_user_id = 1)`,
    );
    expect(d.flags.map((f) => f.name)).toEqual(mine.slice(0, 100));
    // the seed admin, its avatar the gravatar of its username
    expect(d.admins[0]).toEqual({
      id: 1,
      username: 'admin',
      imageUrl: expect.stringMatching(/^https:\/\/gravatar\.com\/avatar\/[0-9a-f]{64}\?s=42&d=retro&r=g$/),
    });

    const details = await apiGet(port, '/api/admin/personal-dashboard/default', asAdmin);
    expect(details.status).toBe(200);
    const p = details.json() as {
      latestEvents: { id: number; createdAt: string; summary: string; createdBy: string }[];
      onboardingStatus: { status: string };
      owners: unknown[];
      roles: unknown[];
      insights: Record<string, number | null>;
    };
    expect(Object.keys(p)).toEqual(['latestEvents', 'onboardingStatus', 'owners', 'roles', 'insights']);
    // the project's 10 newest events, newest first, each with its summary
    const newest = events
      .filter((e) => e.project === 'default')
      .sort((a, b) => b.createdAt.localeCompare(a.createdAt) || b.id - a.id)
      .slice(0, 10);
    expect(p.latestEvents.map((e) => e.id)).toEqual(newest.map((e) => e.id));
    for (const e of p.latestEvents) expect(e.summary).toContain(`**${e.createdBy}**`);
    expect(p.insights).toMatchObject({
      avgHealthCurrentWindow: null,
      avgHealthPastWindow: null,
      totalFlags: live,
    });
    const unknown = await apiGet(port, '/api/admin/personal-dashboard/no-such-project', asAdmin);
    expect(unknown.status).toBe(404);
    expect(unknown.json()).toMatchObject({
      name: 'NotFoundError',
      message: 'No project with id "no-such-project" exists.',
    });
  });

  it('gives each caller their own favourite (admin true, alice false), as the captured responses', async () => {
    const admin = (
      await apiGet(port, '/api/admin/projects/default/overview', asAdmin)
    ).json() as Captured['body'];
    const alice = (
      await apiGet(port, '/api/admin/projects/default/overview', asAlice)
    ).json() as Captured['body'];
    expect(admin.favorite).toBe(load('overview/default.json').body.favorite);
    expect(alice.favorite).toBe(load('overview/_as-alice/default.json').body.favorite);
    expect(alice.stats).toEqual(load('overview/_as-alice/default.json').body.stats);
  });

  it.each([
    'overview-unknown-project.json',
    'overview-space.json',
    'overview-unicode.json',
    'overview-300-chars.json',
  ])('%s: the captured 404 envelope (all but id)', async (file) => {
    const captured = load(join('errors', file));
    const res = await apiGet(port, captured.request.path, asAdmin);
    expect(res.status).toBe(404);
    const body = res.json() as Record<string, unknown>;
    expect(Object.keys(body)).toEqual(['id', 'name', 'message', 'details']);
    expect({ ...body, id: 'x' }).toEqual({ ...captured.body, id: 'x' });
    expect(body.id).toMatch(/^[0-9a-f-]{36}$/);
  });

  describe('as of an instant (at=, docs/design.md "Reads as of an instant")', () => {
    const path = '/api/admin/projects/default/overview';
    // 1 ms before the admin favourited default (event 98); its last event then: 97, 08:52:52.115Z
    const BEFORE_FAVOURITE = '2026-11-22T08:52:52.190Z';

    it('refuses a malformed instant with 400 BadDataError, even where the answer of now is cached', async () => {
      for (let i = 0; i < 3; i++) await apiGet(port, path, asAdmin);
      for (const q of [
        '?at=yesterday',
        '?at=2026-11-22',
        '?at=2026-11-22T08:52:52+01:00',
        '?at=1&at=2',
        '?at=',
      ]) {
        const res = await apiGet(port, `${path}${q}`, asAdmin);
        expect(res.status).toBe(400);
        const body = res.json() as { name: string; details: { message: string; path: string }[] };
        expect(body.name).toBe('BadDataError');
        expect(body.details).toEqual([
          { message: expect.stringMatching(/^The `\/query\/at` property must/), path: '/query/at' },
        ]);
      }
    });

    it('answers as of the instant, never the cached answer of now, and keeps none', async () => {
      for (let i = 0; i < 3; i++) await apiGet(port, path, asAdmin); // the answer of now, cached
      const now = await apiGet(port, path, asAdmin);
      const nowBody = now.json() as Record<string, unknown>;
      expect(nowBody.favorite).toBe(true);
      // at the instant the clock reads (FLAGLENS_CLOCK), after every event: the answer of now, byte for byte
      expect(
        (await apiGet(port, `${path}?at=${encodeURIComponent('2026-11-22T10:01:00+01:00')}`, asAdmin)).text,
      ).toBe(now.text);
      // before the favourite: the admin had not favourited it yet, and the project's latest event was 97
      const res = await apiGet(port, `${path}?at=${BEFORE_FAVOURITE}`, asAdmin);
      expect(res.status).toBe(200);
      const then = res.json() as Record<string, unknown>;
      expect(Object.keys(then)).toEqual(Object.keys(nowBody));
      expect(then.favorite).toBe(false);
      expect(then.updatedAt).toBe('2026-11-22T08:52:52.115Z');
      for (const k of ['featureTypeCounts', 'members', 'health', 'createdAt', 'environments', 'name'])
        expect({ [k]: then[k] }).toEqual({ [k]: nowBody[k] });
      // before the first event: the seeded project, empty
      const empty = (await apiGet(port, `${path}?at=2026-01-01T00:00:00Z`, asAdmin)).json() as OverviewBody;
      expect(empty.featureTypeCounts).toEqual([]);
      expect(empty.members).toBe(0);
      expect(Object.values(empty.stats).every((v) => v === 0)).toBe(true);
      // the answer of now was not replaced by an answer as of an instant
      expect((await apiGet(port, path, asAdmin)).text).toBe(now.text);
      // an unknown project is unknown at any instant
      expect(
        (await apiGet(port, `/api/admin/projects/nope/overview?at=${BEFORE_FAVOURITE}`, asAdmin)).status,
      ).toBe(404);
    });
  });

  it('keeps projecting through valid but inconsistent events, whatever their order', async () => {
    const base = Date.parse('2026-11-20T10:00:00Z');
    let id = 1000;
    const ev = (o: Partial<FlagEvent> & { type: string }, minutes: number) =>
      testEvent(++id, o.type, { createdAt: new Date(base + minutes * 60_000).toISOString(), ...o });
    const lines = [
      // a flag in a project created only later (its events come first: another key)
      ev(
        { type: 'feature-created', project: 'late', featureName: 'late.flag', data: { type: 'experiment' } },
        1,
      ),
      // a move to a project that is never created
      ev(
        { type: 'feature-created', project: 'late', featureName: 'moved.flag', data: { type: 'release' } },
        2,
      ),
      ev(
        {
          type: 'feature-project-change',
          project: 'nowhere',
          featureName: 'moved.flag',
          data: { newProject: 'nowhere', oldProject: 'late' },
        },
        3,
      ),
      // wrong-typed data fields (fallback: the field is ignored) and events of flags never created (skipped)
      ev(
        {
          type: 'feature-metadata-updated',
          project: 'late',
          featureName: 'late.flag',
          data: { type: 42, stale: 'yes' },
        },
        4,
      ),
      ev({ type: 'feature-archived', project: 'late', featureName: 'ghost.flag' }, 5),
      ev({ type: 'project-updated', project: 'never', data: { name: 7 } }, 6),
      ev({ type: 'feature-type-updated', data: { id: 'release', lifetimeDays: 'forty' } }, 7),
      ev({ type: 'project-environment-added', project: 'late', environment: null }, 8),
      ev(
        {
          type: 'project-created',
          project: 'late',
          data: { id: 'late', name: 'Late', description: null, environments: ['production'] },
        },
        9,
      ),
      ev(
        { type: 'project-favorited', project: 'late', createdByUserId: null, data: { project: 'late' } },
        10,
      ),
    ];
    const file = join(tmpdir(), `overview-inconsistent-${process.pid}.ndjson`);
    writeFileSync(file, lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
    await publish(file);
    await waitFor('inconsistent events projected', async () => (await stored()) === 105 + lines.length, {
      timeoutMs: 60000,
    });
    expect(await db.query('SELECT * FROM dead_letters')).toHaveLength(0);
    // the projector is still alive and the created project answers with what the events allow
    const late = (await waitFor('late project overview', async () => {
      const r = await apiGet(port, '/api/admin/projects/late/overview', asAdmin);
      return r.status === 200 ? (r.json() as OverviewBody) : null;
    }))!;
    expect(late.name).toBe('Late');
    expect(late.featureTypeCounts).toEqual([{ type: 'experiment', count: 1 }]);
    expect(late.environments).toEqual([{ environment: 'production' }]);
    expect(late.members).toBe(1); // creator as Owner
    expect(late.stats.projectActivityCurrentWindow).toBe(lines.filter((l) => l.project === 'late').length);
    expect(late.onboardingStatus).toEqual({ status: 'first-flag-created', feature: 'late.flag' });
    // moved to a project never created: not in `late`, and `nowhere` is still unknown
    expect((await apiGet(port, '/api/admin/projects/nowhere/overview', asAdmin)).status).toBe(404);
    expect((await apiGet(port, '/api/admin/projects/never/overview', asAdmin)).status).toBe(404);
    const release = await db.query<{ lifetime_days: number }>(
      `SELECT lifetime_days FROM feature_types WHERE id = 'release'`,
    );
    expect(release[0].lifetime_days).toBe(40);
    expect(stack.logs.join('')).toMatch(/flag never created/);
  });

  it('shows a newly committed event of the project at once, even right after the overview was cached', async () => {
    const path = '/api/admin/projects/default/overview';
    const read = async () => (await apiGet(port, path, asAdmin)).json() as OverviewBody & { health: number };
    const before = await read();
    for (let i = 0; i < 5; i++) await read(); // cached now (the clock is pinned: it would never expire)
    const event = {
      id: 5000,
      createdAt: new Date(Date.parse(PINNED) - 86_400_000).toISOString(),
      type: 'feature-created',
      createdBy: 'admin',
      createdByUserId: 1,
      environment: null,
      project: 'default',
      featureName: 'fresh.overview.flag',
      data: { name: 'fresh.overview.flag', type: 'kill-switch', project: 'default' },
      preData: null,
      tags: null,
    };
    const file = join(tmpdir(), `overview-fresh-${process.pid}.ndjson`);
    writeFileSync(file, JSON.stringify(event) + '\n');
    const n = await stored();
    await publish(file);
    await waitFor('event committed', async () => (await stored()) === n + 1, {
      intervalMs: 5,
      timeoutMs: 60000,
    });
    // committed: the api answers with it as soon as the commit's notice has reached it (milliseconds)
    const t0 = Date.now();
    const after = (await waitFor(
      'overview shows the new flag',
      async () => {
        const b = await read();
        return b.stats.createdCurrentWindow === before.stats.createdCurrentWindow + 1 ? b : null;
      },
      { intervalMs: 5, timeoutMs: 5000 },
    ))!;
    expect(Date.now() - t0).toBeLessThan(1000);
    expect(after.stats.projectActivityCurrentWindow).toBe(before.stats.projectActivityCurrentWindow + 1);
    expect(after.featureTypeCounts).toContainEqual({ type: 'kill-switch', count: expect.any(Number) });
  });
});
