import { testEvent as ev } from '@flaglens/testing/test-events';
import { reduceProjectEnvs } from './project-environments.logic';

describe('project environments update logic', () => {
  it('links from project-created, added/removed, default strategy kept as sent', () => {
    const strategy = { name: 'flexibleRollout', parameters: { rollout: '50' }, constraints: [] };
    const { projects } = reduceProjectEnvs(
      [],
      [
        ev(1, 'project-created', { project: 'p', data: { environments: ['development', 7] } }),
        ev(2, 'project-environment-added', { project: 'p', environment: 'production' }),
        ev(3, 'default-strategy-updated', { project: 'p', environment: 'production', data: strategy }),
        ev(4, 'project-environment-removed', { project: 'p', environment: 'development' }),
      ],
    );
    expect(projects.get('p')).toEqual([
      { project: 'p', environment: 'development', linked: false, defaultStrategy: null },
      { project: 'p', environment: 'production', linked: true, defaultStrategy: strategy },
    ]);
  });

  it('a default strategy before any link leaves the link undecided; project-deleted clears; no env → skipped', () => {
    const { projects, skipped } = reduceProjectEnvs(
      [{ project: 'p', environment: 'x', linked: true, defaultStrategy: null }],
      [
        ev(1, 'default-strategy-updated', { project: 'q', environment: 'production', data: { name: 's' } }),
        ev(2, 'project-deleted', { project: 'p' }),
        ev(3, 'project-environment-added', { project: 'q' }),
      ],
    );
    expect(projects.get('q')).toEqual([
      { project: 'q', environment: 'production', linked: null, defaultStrategy: { name: 's' } },
    ]);
    expect(projects.get('p')).toEqual([]);
    expect(skipped).toEqual([{ eventId: 3, reason: 'project-environment-added without an environment' }]);
  });
});
