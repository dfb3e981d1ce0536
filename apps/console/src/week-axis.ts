/**
 * The time axis of the insights charts speaks in weeks: its ticks are the weeks' own dates (the end of each
 * week), thinned to every k-th week when they do not fit, never hours or days between them, and never a
 * span beyond the data (one week alone gets a week of margin either side).
 */

const DAY_S = 86_400;
/** The narrowest room one tick label needs, in CSS pixels ("2026-11-22" at the chart's font, with a gap). */
export const TICK_PX = 84;

/**
 * The x scale's range, in seconds, for weeks `xs` (ascending): a week either side of a single week; else
 * `[min, max]` as uPlot asks (the data's span, or a span zoomed into). uPlot widens a single time point to
 * a thousand days before it asks, hence the weeks themselves and not its `min === max`.
 */
export function weekRange(xs: readonly number[], min: number, max: number): [number, number] {
  return xs.length === 1 ? [xs[0] - 7 * DAY_S, xs[0] + 7 * DAY_S] : [min, max];
}

/**
 * The ticks for weeks `xs` (seconds, ascending) on an axis `px` wide: every k-th week, k the smallest that
 * fits, counted back from the newest week so the current week always has its tick.
 */
export function weekTicks(xs: readonly number[], px: number): number[] {
  if (xs.length === 0) return [];
  const fit = Math.max(1, Math.floor(px / TICK_PX));
  const step = Math.ceil(xs.length / fit);
  const ticks: number[] = [];
  for (let i = xs.length - 1; i >= 0; i -= step) ticks.push(xs[i]);
  return ticks.reverse();
}

/** A tick's label: the week's date, `yyyy-MM-dd` (UTC). */
export function weekLabel(x: number): string {
  return new Date(x * 1000).toISOString().slice(0, 10);
}
