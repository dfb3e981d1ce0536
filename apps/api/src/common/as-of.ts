import { isAsOfRefusal, parseAsOf } from '@flaglens/contract';
import { requestRefused } from './unleash-errors';

/** The `at` query parameter of the reads that take it (docs/design.md, "Reads as of an instant", lists them). */
export const AS_OF_QUERY_DOC = {
  name: 'at',
  required: false,
  type: String,
  format: 'date-time',
  description:
    'flaglens only (Unleash ignores it and answers now): answer as of this instant (RFC 3339 with Z or an offset, ' +
    'e.g. 2026-11-22T08:52:03.265Z; send + as %2B): only the events created up to it, as a flaglens fed only ' +
    'those would answer with its clock pinned to it. Access is judged as of now. A future instant or one before ' +
    'the first event is answered like any other (before the first: no events); a malformed one is a 400 BadDataError.',
} as const;

/**
 * The instant of a request's `at` (or of another `parameter` that takes one), parseAsOf, null without one; a
 * malformed one throws the reference's 400 (`BadDataError`, `path: "/query/<parameter>"`).
 */
export function asOfInstant(value: unknown, parameter?: string): string | null {
  const asOf = parseAsOf(value, parameter);
  if (isAsOfRefusal(asOf)) throw requestRefused(asOf.message, asOf.path);
  return asOf.at;
}
