/**
 * RFC 3339 `date-time` (section 5.6) as the event contract accepts it: a full date, an upper-case `T`, a
 * time with seconds, optional fractional seconds (1 to 9 digits) and a time-zone designator that is
 * mandatory: `Z` or `±hh:mm`. The year is limited to 1000-2999, so that every accepted value is a
 * real instant whose `toISOString()` has a four-digit year. Leap seconds (`:60`) are not accepted
 * (JavaScript dates cannot represent them).
 *
 * Groups: 1 year, 2 month, 3 day.
 */
export const RFC3339_DATE_TIME_PATTERN =
  /^([12]\d{3})-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])T(?:[01]\d|2[0-3]):[0-5]\d:[0-5]\d(?:\.\d{1,9})?(?:Z|[+-](?:[01]\d|2[0-3]):[0-5]\d)$/;

/** What a producer should send, shown in validation messages. */
export const RFC3339_DATE_TIME_EXAMPLE = '2026-11-22T08:52:03.265Z';

/** The shape of `toISOString()` (UTC, milliseconds, `Z`). */
const CANONICAL_UTC = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** The decimal number of `n` ASCII digits of `s` from `at`. */
function digits(s: string, at: number, n: number): number {
  let v = 0;
  for (let i = at; i < at + n; i++) v = v * 10 + s.charCodeAt(i) - 0x30;
  return v;
}

function isLeapYear(year: number): boolean {
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
}

/**
 * True when `value` is an RFC 3339 date-time with a time-zone designator that names a real calendar
 * day (so `2026-02-29T00:00:00Z` is rejected: `new Date()` would silently roll it over to 1 March).
 */
export function isRfc3339DateTime(value: unknown): value is string {
  if (typeof value !== 'string') return false;
  // `test`, not `exec`: no match array per value. The pattern fixes where the date's digits are.
  if (!RFC3339_DATE_TIME_PATTERN.test(value)) return false;
  const day = digits(value, 8, 2);
  if (day <= 28) return true;
  const year = digits(value, 0, 4);
  const month = digits(value, 5, 2);
  const max = month === 2 && isLeapYear(year) ? 29 : DAYS_IN_MONTH[month - 1];
  return day <= max;
}

/**
 * The normal form of an accepted date-time: UTC, millisecond precision, `Z`
 * (`new Date(s).toISOString()`); extra fractional digits are truncated by the Date parser.
 */
export function normaliseDateTime(value: string): string {
  // already in the normal form (what producers send): a valid value of this shape is its own toISOString()
  if (value.length === 24 && CANONICAL_UTC.test(value)) return value;
  return new Date(value).toISOString();
}
