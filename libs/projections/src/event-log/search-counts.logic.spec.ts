import { testEvent } from '@flaglens/testing/test-events';
import { searchCountDeltas, utcDay } from './search-counts.logic';

describe('the event search counts (pure)', () => {
  it('counts each searchable event once per counted column it has a value in (and its project or environment with its type), by UTC day', () => {
    const deltas = searchCountDeltas([
      testEvent(1, 'feature-created', {
        createdAt: '2026-01-01T23:59:59.999Z',
        project: 'alpha',
        environment: 'production',
        createdByUserId: 7,
      }),
      testEvent(2, 'feature-updated', {
        createdAt: '2026-01-02T00:00:00.000Z',
        project: null,
        environment: null,
        createdByUserId: null,
      }),
      testEvent(3, 'feature-created', {
        createdAt: '2026-01-01T00:00:00.000Z',
        project: 'alpha',
        environment: null,
        createdByUserId: 0,
      }),
      // SDK traffic: never searched, never counted
      testEvent(4, 'client-metrics', { createdAt: '2026-01-01T00:00:00.000Z', project: 'alpha' }),
      testEvent(5, 'client-register', { createdAt: '2026-01-01T00:00:00.000Z' }),
    ]);
    const rows: [string, string, string, string, boolean, number][] = [
      ['', '', '', '2026-01-01', true, 2],
      ['type', 'feature-created', '', '2026-01-01', true, 2],
      ['project', 'alpha', '', '2026-01-01', true, 2],
      ['project+type', 'alpha', 'feature-created', '2026-01-01', true, 2],
      ['environment', 'production', '', '2026-01-01', true, 1],
      ['environment+type', 'production', 'feature-created', '2026-01-01', true, 1],
      ['created_by_user_id', '7', '', '2026-01-01', true, 1],
      ['created_by_user_id', '0', '', '2026-01-01', true, 1],
      ['', '', '', '2026-01-02', false, 1],
      ['type', 'feature-updated', '', '2026-01-02', false, 1],
    ];
    const want = new Map(rows.map(([d, v, v2, day, p, n]) => [JSON.stringify([d, v, v2, day, p]), n]));
    expect([...deltas].sort()).toEqual([...want].sort());
  });

  it('the day of a normalised createdAt is its UTC date', () => {
    expect(utcDay('2026-11-27T23:59:59.999Z')).toBe('2026-11-27');
    expect(utcDay(new Date(Date.UTC(2000, 0, 1) - 1).toISOString())).toBe('1999-12-31');
  });
});
