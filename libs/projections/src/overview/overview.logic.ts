/**
 * The read-time rules of the overview (semantics §3.3, §3.4) as pure functions. The read model applies the
 * same rules in SQL; `overview.int-spec.ts` checks that both agree on a generated history.
 */
import { DAY_MS } from './overview.read-model';

const t = (iso: string | Date) => (typeof iso === 'string' ? Date.parse(iso) : iso.getTime());

/** Current window: `at >= now − 30 d` (no upper bound, as the reference). */
export const inCurrentWindow = (at: string, now: Date): boolean => t(at) >= t(now) - 30 * DAY_MS;

/** Past window: `at BETWEEN now − 60 d AND now − 30 d`, both edges included (so now − 30 d is in both). */
export const inPastWindow = (at: string, now: Date): boolean =>
  t(at) >= t(now) - 60 * DAY_MS && t(at) <= t(now) - 30 * DAY_MS;

/** Potentially stale: not stale, the type has a lifetime, and `now − createdAt ≥ lifetime × 24 h`. */
export const isPotentiallyStale = (
  createdAt: string,
  lifetimeDays: number | null,
  stale: boolean,
  now: Date,
): boolean => !stale && lifetimeDays !== null && t(now) - t(createdAt) >= lifetimeDays * DAY_MS;
