/** The projections' time constants and day arithmetic: one home for them. */

export const DAY_MS = 86_400_000;
export const WEEK_MS = 7 * DAY_MS;

/** Shaped like `toISOString()` (24 characters, `T`, `Z`): its first ten characters are its UTC day. */
const isUtcNormalForm = (iso: string): boolean =>
  iso.length === 24 && iso.charCodeAt(23) === 90 /* Z */ && iso.charCodeAt(10) === 84; /* T */

/** The UTC day (`YYYY-MM-DD`) of an instant; an instant already in UTC normal form (`…Z`) is just cut. */
export const utcDay = (iso: string): string =>
  isUtcNormalForm(iso) ? iso.slice(0, 10) : new Date(iso).toISOString().slice(0, 10);

/**
 * `utcDay` for a run of instants: one that falls on the day of the one before gives that day's string again,
 * with nothing cut (a batch's events mostly share a few days).
 */
export function utcDays(): (iso: string) => string {
  let last = '';
  return (iso) => (last !== '' && isUtcNormalForm(iso) && iso.startsWith(last) ? last : (last = utcDay(iso)));
}
