import { healthRating, statsWindows } from './overview.read-model';

describe('overview read-time helpers', () => {
  it('windows: 30 and 60 days of 24 h before now', () => {
    const w = statsWindows(new Date('2026-11-22T09:01:00Z'));
    expect(w.current.toISOString()).toBe('2026-10-23T09:01:00.000Z');
    expect(w.past.toISOString()).toBe('2026-09-23T09:01:00.000Z');
  });

  it('health: empty project 100; JS rounding (x.5 up)', () => {
    expect(healthRating(0, 0, 0)).toBe(100);
    expect(healthRating(8, 3, 0)).toBe(63); // 62.5
    expect(healthRating(4, 2, 2)).toBe(0);
  });
});
