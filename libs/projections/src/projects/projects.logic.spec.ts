import { testEvent as ev } from '@flaglens/testing/test-events';
import { latestEventPerProject, placeholderProject, reduceProjects, type ProjectRow } from './projects.logic';

const run = (events: ReturnType<typeof ev>[], start = new Map<string, ProjectRow>()) => {
  const { rows, skipped } = reduceProjects(start, events);
  const state = new Map(start);
  for (const r of rows) state.set(r.id, r);
  return { state, skipped };
};

describe('projects update logic', () => {
  const created = ev(1, 'project-created', {
    project: 'p',
    data: {
      id: 'p',
      name: 'P',
      description: 'd',
      featureLimit: 5,
      featureNaming: { pattern: 'p-.*', example: 'p-1' },
    },
  });

  it('project-created: settings with the reference defaults; linked to enabled envs when none are named', () => {
    expect(run([created]).state.get('p')).toEqual({
      ...placeholderProject('p'),
      exists: true,
      name: 'P',
      description: 'd',
      featureLimit: 5,
      namingPattern: 'p-.*',
      namingExample: 'p-1',
      createdAt: created.createdAt,
      linkEnabledEnvs: true,
    });
    const withEnvs = ev(1, 'project-created', { project: 'q', data: { environments: ['production'] } });
    expect(run([withEnvs]).state.get('q')).toMatchObject({ name: 'q', mode: 'open', linkEnabledEnvs: false });
  });

  it('project-updated takes each listed field; wrong types keep the previous value', () => {
    const s = run([
      created,
      ev(2, 'project-updated', {
        project: 'p',
        data: { name: 'P2', description: null, mode: 'protected', featureLimit: 'x', defaultStickiness: 9 },
      }),
      // larger than an integer column holds (it used to make Postgres refuse the whole event)
      ev(3, 'project-updated', { project: 'p', data: { featureLimit: 1e300 } }),
      ev(4, 'project-updated', { project: 'p', data: { featureLimit: 2 ** 31 } }),
    ]).state.get('p');
    expect(s).toMatchObject({
      name: 'P2',
      description: null,
      mode: 'protected',
      featureLimit: 5,
      defaultStickiness: 'default',
    });
  });

  it('archive, revive, delete; updates of an unknown project are skipped', () => {
    const s = run([
      created,
      ev(2, 'project-archived', { project: 'p' }),
      ev(3, 'project-updated', { project: 'zz', data: { name: 'Z' } }),
    ]);
    expect(s.state.get('p')?.archivedAt).toBe(ev(2, 'x').createdAt);
    expect(s.skipped).toEqual([{ eventId: 3, reason: 'project not found' }]);
    expect(run([created, ev(2, 'project-revived', { project: 'p' })]).state.get('p')?.archivedAt).toBeNull();
    expect(run([created, ev(2, 'project-deleted', { project: 'p' })]).state.get('p')?.exists).toBe(false);
  });

  it('latest event per project is a max, whatever the order', () => {
    const a = ev(5, 'feature-tagged', { project: 'p' });
    const b = ev(2, 'feature-tagged', { project: 'p' });
    expect(latestEventPerProject([a, b])).toEqual(latestEventPerProject([b, a]));
    expect(latestEventPerProject([a, b]).get('p')).toBe(a.createdAt);
  });
});
