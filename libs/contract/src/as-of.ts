import { isRfc3339DateTime, normaliseDateTime } from './date-time';

/**
 * The `at` query parameter of the reads (`?at=<RFC 3339 instant>`): answer as a flaglens fed only the events
 * stamped up to that instant, with its clock pinned to it (docs/design.md, "Reads as of an instant"). One
 * parse for every read that takes it. Pure.
 */
export const AS_OF_PARAMETER = 'at';

/** A refusal of `at`: a 400 in the reference's `BadDataError` envelope, with this `details` entry. */
export interface AsOfRefusal {
  message: string;
  path: string;
}

/**
 * `at` as the query string gave it: undefined (no `at`: the read answers now), an instant (RFC 3339 with `Z`
 * or an offset, years 1000-2999, as `date-time.ts` accepts it; normalised to UTC milliseconds: extra
 * fractional digits are truncated, which keeps `created_at <= at` exact since event times are stored to the
 * millisecond), or a refusal (repeated, empty, or not such an instant). Any instant is accepted, the future
 * and before the first event included: the answer is then whatever a flaglens with that log and that clock
 * would give.
 */
export function parseAsOf(
  value: unknown,
  /** the query parameter it came in (another one that takes an instant: the diff's `from` and `to`) */
  parameter = AS_OF_PARAMETER,
): { at: string | null } | AsOfRefusal {
  if (value === undefined) return { at: null };
  const path = `/query/${parameter}`;
  if (typeof value !== 'string')
    return { message: `The \`${path}\` property must be string. You sent ${JSON.stringify(value)}.`, path };
  if (!isRfc3339DateTime(value))
    return {
      message:
        `The \`${path}\` property must match format "date-time" (RFC 3339 with Z or an offset, ` +
        `e.g. 2026-11-22T08:52:03.265Z; send + as %2B). You sent ${JSON.stringify(value)}.`,
      path,
    };
  return { at: normaliseDateTime(value) };
}

export const isAsOfRefusal = (p: { at: string | null } | AsOfRefusal): p is AsOfRefusal => 'message' in p;
