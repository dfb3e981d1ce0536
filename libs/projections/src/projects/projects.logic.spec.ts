import { testEvent as ev } from '@flaglens/testing/test-events';
import {
  latestEventPerProject,
  placeholderProject,
  projectsWithEnable,
  reduceProjects,
  type ProjectRow,
} from './projects.logic';

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

  it('linkTemplates: [] at creation; a project-updated carrying an array sets them, one without keeps them', () => {
    const templates = [
      { title: 'Code', urlTemplate: 'https://example.com/{{project}}/{{feature}}' },
      { title: null, urlTemplate: 'https://example.com/b' },
      { urlTemplate: 'https://example.com/c', extra: 1 },
    ];
    const createdWith = ev(1, 'project-created', { project: 'p', data: { linkTemplates: templates } });
    expect(run([createdWith]).state.get('p')?.linkTemplates).toEqual([]);
    const s = run([created, ev(2, 'project-updated', { project: 'p', data: { linkTemplates: templates } })]);
    expect(s.state.get('p')?.linkTemplates).toEqual([
      templates[0],
      templates[1],
      { urlTemplate: 'https://example.com/c' },
    ]);
    // a 6.x project-updated (no linkTemplates) or a wrong shape keeps them; bad items are left out
    const kept = run(
      [
        ev(3, 'project-updated', { project: 'p', data: { name: 'P3' } }),
        ev(4, 'project-updated', { project: 'p', data: { linkTemplates: 'x' } }),
      ],
      s.state,
    ).state.get('p');
    expect(kept?.linkTemplates).toEqual(s.state.get('p')?.linkTemplates);
    const filtered = run(
      [
        ev(5, 'project-updated', {
          project: 'p',
          data: { linkTemplates: [1, null, { title: 2, urlTemplate: 'u' }, {}] },
        }),
      ],
      s.state,
    ).state.get('p');
    expect(filtered?.linkTemplates).toEqual([{ urlTemplate: 'u' }]);
    const cleared = run([ev(6, 'project-updated', { project: 'p', data: { linkTemplates: [] } })], s.state);
    expect(cleared.state.get('p')?.linkTemplates).toEqual([]);
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

  it('names the projects an enable of the batch names, whatever the flag and environment', () => {
    const events = [
      ev(1, 'feature-environment-enabled', { project: 'p', featureName: 'f', environment: 'production' }),
      ev(2, 'feature-environment-disabled', { project: 'q', featureName: 'g', environment: 'production' }),
      ev(3, 'feature-environment-enabled', { project: null, featureName: 'h' }),
    ];
    expect([...projectsWithEnable(events)]).toEqual(['p']);
  });
});
