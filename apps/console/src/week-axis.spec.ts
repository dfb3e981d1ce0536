import { TICK_PX, weekLabel, weekRange, weekTicks } from './week-axis';

const WEEK = 7 * 86_400;
const sunday = Date.parse('2026-11-22T23:59:59.999Z') / 1000;
const weeks = (n: number) => Array.from({ length: n }, (_, i) => sunday - (n - 1 - i) * WEEK);

describe('the insights charts’ week axis', () => {
  it('ticks every week when they fit, each on a week, none between', () => {
    expect(weekTicks(weeks(2), 600)).toEqual(weeks(2));
    expect(weekTicks(weeks(2), 600).map(weekLabel)).toEqual(['2026-11-15', '2026-11-22']);
  });

  it('one week alone: one tick, a week of margin either side, not years', () => {
    expect(weekTicks([sunday], 600)).toEqual([sunday]);
    // what uPlot asks for a single time point: a thousand days from it
    expect(weekRange([sunday], sunday, sunday + 1000 * 86_400)).toEqual([sunday - WEEK, sunday + WEEK]);
    expect(weekRange(weeks(2), sunday - WEEK, sunday)).toEqual([sunday - WEEK, sunday]);
    expect(weekRange(weeks(9), sunday - 3 * WEEK, sunday)).toEqual([sunday - 3 * WEEK, sunday]); // zoomed
  });

  it('thins to every k-th week from the newest when they do not fit', () => {
    const xs = weeks(104);
    for (const px of [280, 600, 1200]) {
      const ticks = weekTicks(xs, px);
      expect(ticks.length).toBeLessThanOrEqual(Math.floor(px / TICK_PX));
      expect(ticks[ticks.length - 1]).toBe(sunday); // the current week is labelled
      for (const t of ticks) expect(xs).toContain(t);
      const gaps = new Set(ticks.slice(1).map((t, i) => t - ticks[i]));
      expect(gaps.size).toBe(1); // evenly spaced, a whole number of weeks
      expect([...gaps][0] % WEEK).toBe(0);
    }
  });

  it('no weeks, no ticks', () => {
    expect(weekTicks([], 600)).toEqual([]);
  });
});
