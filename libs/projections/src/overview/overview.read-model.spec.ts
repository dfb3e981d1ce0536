import { healthRating } from './overview.read-model';

describe('overview read-time helpers', () => {
  it('health: empty project 100; JS rounding (x.5 up)', () => {
    expect(healthRating(0, 0, 0)).toBe(100);
    expect(healthRating(8, 3, 0)).toBe(63); // 62.5
    expect(healthRating(4, 2, 2)).toBe(0);
  });
});
