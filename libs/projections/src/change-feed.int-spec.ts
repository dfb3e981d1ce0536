import type { FlagEvent } from '@flaglens/contract';
import { Database, searchPathOption } from '@flaglens/persistence';
import { createTestDatabase, type TestDatabase } from '@flaglens/testing/support/test-database';
import { applyProjections } from './apply-projections';
import { deriveChanges, type Changes } from './change-feed';
import { appendEvents } from './event-log/event-log.projection';
import { allProjections } from './registry';
import { testEvent } from '@flaglens/testing/test-events';

/** What readers drop after a batch, as derived from the projections' declarations (real Postgres). */
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
      identity: false,
    });
    // an event naming the flag but no project changes the overview of the flag's project (time to production)
    expect(
      await batch([ev('feature-environment-enabled', { featureName: 'f', environment: 'production' })]),
    ).toEqual({
      flags: ['f'],
      projects: ['p'],
      identity: false,
    });
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
    ).toEqual({ flags: ['m'], projects: ['p', 'q'], identity: false });
  });

  it('SDK metrics: the projects of the flags they name; a registration: its project', async () => {
    const metrics = ev('client-metrics', {
      data: { appName: 'a', bucket: { start: 0, stop: 1, toggles: { f: { yes: 1, no: 0 } } } },
    });
    expect(await batch([metrics])).toEqual({ flags: [], projects: ['p'], identity: false });
    expect(await batch([ev('client-register', { data: { appName: 'a', project: 'q' } })])).toEqual({
      flags: [],
      projects: ['q'],
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
    ).toEqual({ flags: [], projects: ['q'], identity: true });
    expect(await batch([ev('user-created', { data: { id: 9, username: 'nine', rootRole: 3 } })])).toEqual({
      flags: [],
      projects: '*',
      identity: true,
    });
    expect(await batch([ev('environment-created', { data: { name: 'qa', type: 'test' } })])).toEqual({
      flags: [],
      projects: '*',
      identity: false,
    });
    expect(await batch([ev('feature-type-updated', { data: { id: 'release', lifetimeDays: 10 } })])).toEqual({
      flags: [],
      projects: '*',
      identity: false,
    });
  });

  it('events no reader of an overview reads change none', async () => {
    expect(await batch([ev('tag-created', { data: { type: 'simple', value: 'ab' } })])).toEqual({
      flags: [],
      projects: [],
      identity: false,
    });
  });
});
