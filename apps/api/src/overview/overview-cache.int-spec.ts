import type { CachedReads } from '../reads/cached-reads';
import type { AsOfReads } from '../read-db/as-of-reads.service';
import { OverviewReference } from '@flaglens/testing/overview-reference';
import { testEvent } from '@flaglens/testing/test-events';
import type { FlagEvent } from '@flaglens/contract';
import { AppConfig, Clock } from '@flaglens/config';
import { Database, searchPathOption } from '@flaglens/persistence';
import {
  allProjections,
  applyProjections,
  appendEvents,
  IdentityProjectAccessReader,
  IdentityReadModel,
  OverviewReadModel,
  decodeChanges,
  encodeChanges,
  EVERY,
  writtenBy,
  type Changes,
} from '@flaglens/projections';
import { generateHistory } from '@flaglens/testing/generate-history';
import { createTestDatabase, type TestDatabase } from '@flaglens/testing/support/test-database';
import type { ChangeHandler, ChangeListener } from '../read-db/change-listener.service';
import type { ProjectionReads } from '../read-db/projection-reads.service';
import { OverviewCache } from './overview.cache';
import { GetProjectOverviewHandler, GetProjectOverviewQuery } from './get-project-overview.query';

const DAY = 86_400_000;

class MovableClock extends Clock {
  constructor(public t: number) {
    super();
  }
  now(): Date {
    return new Date(this.t);
  }
}

/** Applies a batch; returns its notices as the change feed publishes them. */
async function apply(ds: Database, events: FlagEvent[]): Promise<Changes[]> {
  const c = await ds.connect();
  try {
    await c.query('BEGIN');
    const stored = await appendEvents(
      c,
      events.map((event) => ({ event, knownType: true, topic: null, partition: null, offset: null })),
    );
    const { changes, transitions } = await applyProjections(c, stored, allProjections());
    const notices = encodeChanges(await writtenBy(c, stored, changes, transitions)).map(decodeChanges);
    await c.query('COMMIT');
    return notices;
  } finally {
    c.release();
  }
}

/** One notice naming these tables' keys (of a batch, or of part of one). */
const notice = (w: Record<string, { flags?: string[]; projects?: string[] | '*' }>): Changes =>
  decodeChanges(
    encodeChanges(
      Object.entries(w).map(([t, x]) => ({
        tables: [t],
        flags: new Set(x.flags ?? []),
        projects: x.projects === '*' ? EVERY : new Set(x.projects ?? []),
      })),
    )[0],
  );

const ev = (id: number, at: number, type: string, o: Partial<FlagEvent> = {}): FlagEvent =>
  testEvent(id, type, { createdAt: new Date(at).toISOString(), ...o });

describe('overview cache: exactly fresh across window edges and commits (real Postgres)', () => {
  let db: TestDatabase;
  let ds: Database;
  let model: OverviewReadModel;
  /** A second instance for fresh computations, so the spy on `model` counts the handler's only. */
  let reference: OverviewReference;
  let identity: IdentityReadModel;

  beforeAll(async () => {
    db = await createTestDatabase('overview_cache');
    ds = new Database({
      url: db.url,
      max: 4,
      applicationName: 't',
      options: searchPathOption('flaglens_v1'),
    });
    identity = new IdentityReadModel(ds);
    model = new OverviewReadModel(ds);
    reference = new OverviewReference(ds, new IdentityProjectAccessReader(identity));
  });
  afterAll(async () => {
    await ds?.end();
    await db?.drop();
  });

  const fresh = async (project: string, at: number, userId: number | null = null) =>
    JSON.stringify(await reference.overview(project, new Date(at), userId));

  /** A project with one release flag, both created at the given instants. */
  const projectWithFlag = (id: number, project: string, createdAt: number, flagAt: number) =>
    apply(ds, [
      ev(id, createdAt, 'project-created', { project, data: { id: project, name: project } }),
      ev(id + 1, flagAt, 'feature-created', {
        project,
        featureName: `${project}-f1`,
        data: { name: `${project}-f1`, type: 'release', project },
      }),
    ]);

  /** The query handler on a fresh cache, its clock at `t`, and a way to deliver change notices to the cache. */
  const cachedHandler = (t: number) => {
    const handlers: ChangeHandler[] = [];
    const listener = {
      enabled: true,
      listening: true,
      subscribe: (h: ChangeHandler) => handlers.push(h),
    } as unknown as ChangeListener;
    const reads = { schema: 'flaglens_v1' } as unknown as ProjectionReads;
    const cache = new OverviewCache({ API_CACHE_MB: 8 } as AppConfig, listener, reads);
    const clock = new MovableClock(t);
    // the hot path's registry is not part of these tests (onModuleInit is not called), nor reads as of an instant
    const handler = new GetProjectOverviewHandler(
      model,
      identity,
      clock,
      cache,
      {} as CachedReads,
      {} as AsOfReads,
    );
    return { handler, clock, listener, notify: (c: Changes) => handlers.forEach((h) => h(c)) };
  };

  it('a snapshot is exactly the fresh overview at every instant of [at, validUntil), on a generated history', async () => {
    const END = Date.parse('2026-11-22T09:00:00.000Z');
    await apply(
      ds,
      generateHistory({
        seed: 11,
        projects: 3,
        flagsPerProject: 30,
        events: 2000,
        weeks: 12,
        end: new Date(END).toISOString(),
      }),
    );
    let edges = 0;
    let real = 0;
    for (const project of ['default', 'sim-project-1', 'sim-project-2']) {
      let now = END - 100 * DAY;
      for (let step = 0; step < 12 && now < END + 120 * DAY; step++) {
        const s = (await model.snapshot(project, new Date(now)))!;
        const body = JSON.stringify(s.body);
        expect(JSON.stringify((await model.snapshot(project, new Date(now)))!.body)).toBe(body);
        if (s.validUntil === null) break;
        expect(s.validUntil).toBeGreaterThanOrEqual(s.at);
        const last = Math.max(s.at, s.validUntil - 1);
        for (const t of [last, Math.floor((s.at + last) / 2), s.at + 1].filter((x) => x <= last))
          expect({ t, body: JSON.stringify((await model.snapshot(project, new Date(t)))!.body) }).toEqual({
            t,
            body,
          });
        edges++;
        // the edge is a real change (at the edge itself or right after it) for most edges
        const at = JSON.stringify((await model.snapshot(project, new Date(s.validUntil)))!.body);
        const after = JSON.stringify((await model.snapshot(project, new Date(s.validUntil + 1)))!.body);
        if (at !== body || after !== body) real++;
        now = Math.max(s.validUntil, s.at + 1);
      }
    }
    expect(edges).toBeGreaterThan(10);
    expect(real).toBeGreaterThan(edges / 2);
  });

  it('serves the cached body until the clock crosses a window edge, then the fresh one; drops on commits', async () => {
    const T = Date.parse('2026-06-01T12:00:00.000Z');
    await projectWithFlag(900001, 'edge', T - 100 * DAY, T);
    const { handler, clock, listener, notify } = cachedHandler(T + 30 * DAY - 3_600_000);
    const computed = jest.spyOn(model, 'read');
    const get = async (userId: number | null = null) =>
      (await handler.execute(new GetProjectOverviewQuery('edge', userId))).bytes.toString();

    const first = await get();
    expect(first).toBe(await fresh('edge', clock.t));
    expect(JSON.parse(first).stats).toMatchObject({ createdCurrentWindow: 1, createdPastWindow: 0 });
    computed.mockClear();
    expect(await get()).toBe(first);
    expect(await get(1)).toBe(await fresh('edge', clock.t, 1));
    expect(computed).not.toHaveBeenCalled();

    // the last millisecond before the edge: still the cached body, and it is the fresh one
    clock.t = T + 30 * DAY - 1;
    expect(await get()).toBe(await fresh('edge', clock.t));
    expect(computed).not.toHaveBeenCalled();

    // at now − 30 d = createdAt the flag is in both windows (inclusive edges): recomputed
    clock.t = T + 30 * DAY;
    const atEdge = await get();
    expect(computed).toHaveBeenCalledTimes(1);
    expect(atEdge).toBe(await fresh('edge', clock.t));
    expect(JSON.parse(atEdge).stats).toMatchObject({ createdCurrentWindow: 1, createdPastWindow: 1 });

    clock.t = T + 30 * DAY + 1;
    const past = await get();
    expect(past).toBe(await fresh('edge', clock.t));
    expect(JSON.parse(past).stats).toMatchObject({ createdCurrentWindow: 0, createdPastWindow: 1 });
    computed.mockClear();
    expect(await get()).toBe(past);
    expect(computed).not.toHaveBeenCalled();

    // a clock moved back is never served a later snapshot
    clock.t = T + 30 * DAY - 1;
    expect(await get()).toBe(first);
    expect(computed).toHaveBeenCalledTimes(1);
    clock.t = T + 30 * DAY + 1;
    await get();

    // a commit of another project keeps the entry; one of this project drops it
    const edited = await apply(ds, [
      ev(900003, T + 30 * DAY, 'feature-updated', { project: 'edge', featureName: 'edge-f1' }),
    ]);
    computed.mockClear();
    notify(
      notice({
        flag_state: { flags: ['other-f'], projects: ['other'] },
        'projects.settings': { projects: ['other'] },
      }),
    );
    expect(await get()).toBe(past);
    expect(computed).not.toHaveBeenCalled();
    edited.forEach(notify);
    const after = await get();
    expect(computed).toHaveBeenCalledTimes(1);
    expect(after).toBe(await fresh('edge', clock.t));
    expect(JSON.parse(after).stats.projectActivityCurrentWindow).toBe(
      JSON.parse(past).stats.projectActivityCurrentWindow + 1,
    );

    // not listening: never served from the cache
    computed.mockClear();
    (listener as { listening: boolean }).listening = false;
    await get();
    await get();
    expect(computed).toHaveBeenCalledTimes(2);
  });

  it("keeps a caller's access across the project's own changes, and drops it when identity changes", async () => {
    const T = Date.parse('2026-06-01T12:00:00.000Z');
    await projectWithFlag(910001, 'acc', T - DAY, T - DAY);
    const { handler, clock, notify } = cachedHandler(T);
    const access = jest.spyOn(identity, 'accessToProject');
    const computed = jest.spyOn(model, 'read');
    const get = async () => (await handler.execute(new GetProjectOverviewQuery('acc', 1))).bytes.toString();

    expect(await get()).toBe(await fresh('acc', clock.t, 1));
    expect(access).toHaveBeenCalledTimes(1);

    // a flag of the project changes (no identity event): the body is read again, the access is not
    const updated = await apply(ds, [
      ev(910003, T, 'feature-updated', { project: 'acc', featureName: 'acc-f1' }),
    ]);
    access.mockClear();
    computed.mockClear();
    updated.forEach(notify);
    expect(await get()).toBe(await fresh('acc', clock.t, 1));
    expect(computed).toHaveBeenCalledTimes(1);
    expect(access).not.toHaveBeenCalled();

    // the caller favourites the project (an identity event of that batch): the access is read again
    (
      await apply(ds, [
        ev(910004, T, 'project-favorited', { project: 'acc', createdByUserId: 1, data: { project: 'acc' } }),
      ])
    ).forEach(notify);
    const favorited = await get();
    expect(access).toHaveBeenCalledTimes(1);
    expect(JSON.parse(favorited).favorite).toBe(true);
    expect(favorited).toBe(await fresh('acc', clock.t, 1));
    access.mockRestore();
    computed.mockRestore();
  });

  it('keeps the state across changes of the activity alone, and reads it again when it changes', async () => {
    const T = Date.parse('2026-07-01T12:00:00.000Z');
    await projectWithFlag(920001, 'st', T - 10 * DAY, T - 5 * DAY);
    const { handler, clock, notify } = cachedHandler(T);
    const reads = jest.spyOn(model, 'read');
    const get = async () => (await handler.execute(new GetProjectOverviewQuery('st', null))).bytes.toString();
    /** Whether the last read was of the activity alone (given a state kept before). */
    const activityOnly = () => reads.mock.calls[reads.mock.calls.length - 1][3] !== undefined;

    expect(await get()).toBe(await fresh('st', clock.t));
    expect(activityOnly()).toBe(false);

    // a strategy changes (no state): the body is read again, as the activity on the state kept
    const strategy = await apply(ds, [
      ev(920003, T, 'feature-strategy-update', {
        project: 'st',
        featureName: 'st-f1',
        environment: 'production',
      }),
    ]);
    reads.mockClear();
    strategy.forEach(notify);
    const changed = await get();
    expect(reads).toHaveBeenCalledTimes(1);
    expect(activityOnly()).toBe(true);
    expect(changed).toBe(await fresh('st', clock.t));
    expect(JSON.parse(changed).stats.projectActivityCurrentWindow).toBe(3);

    // the flag goes stale (its state): read in full, the health counts it
    (await apply(ds, [ev(920004, T, 'feature-stale-on', { project: 'st', featureName: 'st-f1' })])).forEach(
      notify,
    );
    const stale = await get();
    expect(activityOnly()).toBe(false);
    expect(stale).toBe(await fresh('st', clock.t));
    expect(JSON.parse(stale).health).toBe(0);

    // a batch's notices may name the project in one and its state in the next: the body goes with either
    await apply(ds, [ev(920005, T, 'feature-stale-off', { project: 'st', featureName: 'st-f1' })]);
    notify(notice({ event_log: { flags: ['st-f1'], projects: ['st'] } }));
    // read in between: the state kept is the one its notice (next) is about to drop
    expect(JSON.parse(await get()).health).toBe(0);
    notify(notice({ flag_state: { flags: ['st-f1'], projects: ['st'] } }));
    const live = await get();
    expect(activityOnly()).toBe(false);
    expect(live).toBe(await fresh('st', clock.t));
    expect(JSON.parse(live).health).toBe(100);

    // the state's own edge (the flag leaves the current window's creations): read in full again, once
    reads.mockClear();
    clock.t = T - 5 * DAY + 30 * DAY + 1;
    expect(await get()).toBe(await fresh('st', clock.t));
    expect(reads).toHaveBeenCalledTimes(1);
    expect(activityOnly()).toBe(false);
    reads.mockRestore();
  });
});
