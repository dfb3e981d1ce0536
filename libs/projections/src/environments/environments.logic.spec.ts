import { testEvent as ev } from '@flaglens/testing/test-events';
import { reduceFeatureTypes } from '../feature-types/feature-types.logic';
import { reduceEnvironments } from './environments.logic';

describe('environments and feature types update logic', () => {
  it('environment-created/updated/deleted with fallbacks', () => {
    const { rows, skipped } = reduceEnvironments(new Map(), [
      ev(1, 'environment-created', {
        data: { name: 'staging', type: 'test', sortOrder: 150, enabled: true },
      }),
      ev(2, 'environment-updated', { data: { name: 'staging', sortOrder: 'high' } }),
      // larger than an integer column holds: the previous value
      ev(2, 'environment-updated', { data: { name: 'staging', sortOrder: 1e15 } }),
      ev(3, 'environment-created', { environment: 'qa', data: {} }),
      ev(4, 'environment-deleted', { data: { name: 'qa' } }),
      ev(5, 'environment-deleted', { data: {} }),
    ]);
    expect(rows).toEqual([
      {
        name: 'staging',
        type: 'test',
        sortOrder: 150,
        enabled: true,
        deleted: false,
        createdAt: ev(1, 'x').createdAt,
      },
      {
        name: 'qa',
        type: 'development',
        sortOrder: 9999,
        enabled: true,
        deleted: true,
        createdAt: ev(3, 'x').createdAt,
      },
    ]);
    expect(skipped).toEqual([{ eventId: 5, reason: 'environment-deleted without an environment name' }]);
  });

  it('feature-type-updated: 0 means no lifetime; invalid values are skipped', () => {
    const { lifetimes, skipped } = reduceFeatureTypes([
      ev(1, 'feature-type-updated', { data: { id: 'release', lifetimeDays: 0 } }),
      ev(2, 'feature-type-updated', { data: { id: 'experiment', lifetimeDays: 21 } }),
      ev(3, 'feature-type-updated', { data: { id: 'operational', lifetimeDays: 'x' } }),
    ]);
    expect([...lifetimes]).toEqual([
      ['release', null],
      ['experiment', 21],
    ]);
    expect(skipped.map((s) => s.eventId)).toEqual([3]);
  });
});
