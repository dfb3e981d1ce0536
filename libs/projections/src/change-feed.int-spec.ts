import type { FlagEvent } from '@flaglens/contract';
import { Database, searchPathOption } from '@flaglens/persistence';
import { createTestDatabase, type TestDatabase } from '@flaglens/testing/support/test-database';
import { applyProjections } from './apply-projections';
import { decodeChanges, dropsOf, encodeChanges, writtenBy, type Reads } from './change-feed';
import { appendEvents } from './event-log/event-log.projection';
import { allProjections } from './registry';
import { testEvent } from '@flaglens/testing/test-events';
import { generateHistory, prng } from '@flaglens/testing/generate-history';
import { OVERVIEW_READS, OVERVIEW_STATE_READS, OverviewReadModel } from './overview/overview.read-model';
import { FLAG_EVENTS_READS } from './event-log/event-log.read-model';
import { IDENTITY_READS } from './identity/identity.read-model';
import type { BatchChanges } from './change-feed';
import type { FlagTransition } from './flag-transitions';
import type { PoolClient } from 'pg';
import type { SourcedEvent } from './projection';

/** What the api's readers drop after a batch: the keys of each reader's answers ('*': all of them). */
interface Changes {
  /** a flag's event list (FLAG_EVENTS_READS) */
  flags: string[] | '*';
  /** a project's overview (OVERVIEW_READS) */
  projects: string[] | '*';
  /** a project's overview state (OVERVIEW_STATE_READS) */
  states: string[] | '*';
  /** what callers are and may see (IDENTITY_READS) */
  identity: boolean;
}

/** The batch's writes as published (its notices, decoded) and what each declaration drops of them. */
async function deriveChanges(
  c: PoolClient,
  stored: readonly SourcedEvent[],
  changes: BatchChanges,
  transitions: readonly FlagTransition[],
): Promise<Changes> {
  const notices = encodeChanges(await writtenBy(c, stored, changes, transitions)).map(decodeChanges);
  const keys = (reads: Reads): string[] | '*' => {
    const drops = notices.map(dropsOf(reads));
    if (drops.includes('all')) return '*';
    return [...new Set(drops.flatMap((d) => (d === 'none' ? [] : d)))];
  };
  return {
    flags: keys(FLAG_EVENTS_READS),
    projects: keys(OVERVIEW_READS),
    states: keys(OVERVIEW_STATE_READS),
    identity: keys(IDENTITY_READS) === '*',
  };
}

/** What readers drop after a batch, as derived from the projections' and the readers' declarations (real Postgres). */
describe('changes derived from the projections` declarations', () => {
  let db: TestDatabase;
  let ds: Database;
  let nextId = 1;
  const ev = (type: string, o: Partial<FlagEvent> = {}) =>
    testEvent(nextId++, type, {
      createdAt: new Date(Date.UTC(2026, 0, 1) + nextId * 60_000).toISOString(),
      ...o,
    });

  async function batch(events: FlagEvent[]): Promise<Changes> {
    const c = await ds.connect();
    try {
      await c.query('BEGIN');
      const stored = await appendEvents(
        c,
        events.map((event) => ({ event, knownType: true, topic: null, partition: null, offset: null })),
      );
      const { changes, transitions } = await applyProjections(c, stored, allProjections());
      const derived = await deriveChanges(c, stored, changes, transitions);
      await c.query('COMMIT');
      return {
        ...derived,
        flags: derived.flags === '*' ? '*' : [...derived.flags].sort(),
        projects: derived.projects === '*' ? '*' : [...derived.projects].sort(),
        states: derived.states === '*' ? '*' : [...derived.states].sort(),
      };
    } finally {
      c.release();
    }
  }

  beforeAll(async () => {
    db = await createTestDatabase('change_feed');
    ds = new Database({
      url: db.url,
      max: 1,
      options: searchPathOption('flaglens_v1'),
    });
    // the instance's first event: it dates the seeded `default` project, so every project may change
    expect(await batch([ev('strategy-created', { data: { name: 'x' } })])).toEqual({
      flags: [],
      projects: '*',
      states: '*',
      identity: false,
    });
    await batch([
      ev('project-created', { project: 'p', data: { id: 'p', name: 'P' } }),
      ev('project-created', { project: 'q', data: { id: 'q', name: 'Q' } }),
    ]);
  });
  afterAll(async () => {
    await ds.end();
    await db.drop();
  });

  it('a flag`s events: its list, and its project`s overview', async () => {
    expect(
      await batch([ev('feature-created', { project: 'p', featureName: 'f', data: { type: 'release' } })]),
    ).toEqual({
      flags: ['f'],
      projects: ['p'],
      states: ['p'],
      identity: false,
    });
    // an event naming the flag but no project changes the overview of the flag's project (time to production),
    // in its activity only
    expect(
      await batch([ev('feature-environment-enabled', { featureName: 'f', environment: 'production' })]),
    ).toEqual({
      flags: ['f'],
      projects: ['p'],
      states: [],
      identity: false,
    });
  });

  it('a flag`s strategies and switches change its project`s activity; its staleness, the state', async () => {
    expect(
      await batch([
        ev('feature-strategy-update', { project: 'p', featureName: 'f', environment: 'production' }),
        ev('feature-updated', { project: 'p', featureName: 'f' }),
      ]),
    ).toEqual({ flags: ['f'], projects: ['p'], states: [], identity: false });
    expect(await batch([ev('feature-stale-on', { project: 'p', featureName: 'f' })])).toEqual({
      flags: ['f'],
      projects: ['p'],
      states: ['p'],
      identity: false,
    });
    // a project's settings are its state; an event of the project without a flag, its activity
    expect(
      await batch([
        ev('project-updated', { project: 'q', data: { id: 'q', name: 'Q2' } }),
        ev('project-favorited', { project: 'p', data: { project: 'p' } }),
      ]),
    ).toEqual({ flags: [], projects: ['p', 'q'], states: ['p', 'q'], identity: true });
  });

  it('a move: the projects before and after', async () => {
    expect(
      await batch([
        ev('feature-created', { project: 'p', featureName: 'm', data: { type: 'release' } }),
        ev('feature-project-change', {
          project: 'q',
          featureName: 'm',
          data: { oldProject: 'p', newProject: 'q' },
        }),
      ]),
    ).toEqual({ flags: ['m'], projects: ['p', 'q'], states: ['p', 'q'], identity: false });
  });

  it('SDK metrics: the projects of the flags they name; a registration: its project', async () => {
    const metrics = ev('client-metrics', {
      data: { appName: 'a', bucket: { start: 0, stop: 1, toggles: { f: { yes: 1, no: 0 } } } },
    });
    expect(await batch([metrics])).toEqual({ flags: [], projects: ['p'], states: ['p'], identity: false });
    expect(await batch([ev('client-register', { data: { appName: 'a', project: 'q' } })])).toEqual({
      flags: [],
      projects: ['q'],
      states: ['q'],
      identity: false,
    });
  });

  it('memberships: their project and identity; users, roles and environments: every project', async () => {
    expect(
      await batch([
        ev('project-access-added', {
          project: 'q',
          data: { roles: [{ roleId: 5, userIds: [1], groupIds: [] }] },
        }),
      ]),
    ).toEqual({ flags: [], projects: ['q'], states: ['q'], identity: true });
    expect(await batch([ev('user-created', { data: { id: 9, username: 'nine', rootRole: 3 } })])).toEqual({
      flags: [],
      projects: '*',
      states: '*',
      identity: true,
    });
    expect(await batch([ev('environment-created', { data: { name: 'qa', type: 'test' } })])).toEqual({
      flags: [],
      projects: '*',
      states: '*',
      identity: false,
    });
    expect(await batch([ev('feature-type-updated', { data: { id: 'release', lifetimeDays: 10 } })])).toEqual({
      flags: [],
      projects: '*',
      states: '*',
      identity: false,
    });
  });

  it('events no reader of an overview reads change none', async () => {
    expect(await batch([ev('tag-created', { data: { type: 'simple', value: 'ab' } })])).toEqual({
      flags: [],
      projects: [],
      states: [],
      identity: false,
    });
  });
});

/**
 * The declarations checked against the data: on a generated history applied batch by batch, a project the
 * derived changes leave out has the same overview after the batch (`projects`), and one left out of `states`
 * the same overview state (real Postgres; the overview read at one instant after the history).
 */
describe('changes derived from the declarations, against the overviews they keep', () => {
  let db: TestDatabase;
  let ds: Database;
  beforeAll(async () => {
    db = await createTestDatabase('change_feed_states');
    ds = new Database({ url: db.url, max: 2, options: searchPathOption('flaglens_v1') });
  });
  afterAll(async () => {
    await ds.end();
    await db.drop();
  });

  it('leaves out only projects whose overview (or state) the batch did not change', async () => {
    const END = Date.parse('2026-11-01T00:00:00.000Z');
    const history = generateHistory({
      seed: 5,
      projects: 4,
      flagsPerProject: 12,
      events: 1500,
      weeks: 10,
      end: new Date(END).toISOString(),
      rich: true,
    });
    const projects = ['default', 'sim-project-1', 'sim-project-2', 'sim-project-3'];
    const model = new OverviewReadModel(ds);
    const now = new Date(END + 86_400_000);
    const read = async () =>
      new Map(
        await Promise.all(
          projects.map(async (p) => {
            const { snapshot, state } = await model.read(p, now);
            return [
              p,
              { body: JSON.stringify(snapshot?.body ?? null), state: JSON.stringify(state?.row ?? null) },
            ] as const;
          }),
        ),
      );
    const rnd = prng(9);
    let before = await read();
    const seen = { activityOnly: 0, stateChanged: 0, unchanged: 0 };
    for (let i = 0; i < history.length;) {
      const events = history.slice(i, (i += 1 + Math.floor(rnd() * 30)));
      const c = await ds.connect();
      let derived: Changes;
      try {
        await c.query('BEGIN');
        const stored = await appendEvents(
          c,
          events.map((event) => ({ event, knownType: true, topic: null, partition: null, offset: null })),
        );
        const { changes, transitions } = await applyProjections(c, stored, allProjections());
        derived = await deriveChanges(c, stored, changes, transitions);
        await c.query('COMMIT');
      } finally {
        c.release();
      }
      const after = await read();
      for (const p of projects) {
        const named = derived.projects === '*' || derived.projects.includes(p);
        const state = derived.states === '*' || derived.states.includes(p);
        const was = before.get(p)!;
        const is = after.get(p)!;
        if (!named) expect({ p, events, body: is.body }).toEqual({ p, events, body: was.body });
        if (!state) expect({ p, events, state: is.state }).toEqual({ p, events, state: was.state });
        if (is.state !== was.state) seen.stateChanged++;
        else if (is.body !== was.body) seen.activityOnly++;
        else seen.unchanged++;
        // a project whose state may have changed is one whose overview may have changed
        if (state) expect(named).toBe(true);
      }
      before = after;
    }
    // the history exercises both kinds of change, and batches that change neither
    expect(seen.activityOnly).toBeGreaterThan(20);
    expect(seen.stateChanged).toBeGreaterThan(20);
    expect(seen.unchanged).toBeGreaterThan(20);
  });
});
