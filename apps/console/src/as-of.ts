/**
 * The console's time control: an instant kept in the URL (`?at=2026-11-22T08:52:50.000Z`), read by the api as
 * `at=` (docs/design.md, "Reads as of an instant"). The console shows and takes instants in UTC. Pure.
 */

/** RFC 3339 with `Z` or an offset, as the api takes it (it refuses anything else with a 400). */
const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/i;

/** The instant a URL parameter names, as UTC milliseconds (`…T08:52:50.000Z`); undefined when it names none. */
export function parseInstant(value: string | null | undefined): string | undefined {
  const v = value?.trim();
  if (!v || !RFC3339.test(v)) return undefined;
  const ms = Date.parse(v);
  if (Number.isNaN(ms)) return undefined;
  const iso = new Date(ms).toISOString();
  return /^\d{4}-/.test(iso) ? iso : undefined;
}

/** An instant as a `datetime-local` input's value, in UTC to the second (`2026-11-22T08:52:50`). */
export function toInputValue(instant: string | undefined): string {
  return instant ? instant.slice(0, 19) : '';
}

/** A `datetime-local` value (minutes, seconds or milliseconds), read as UTC; undefined when empty or invalid. */
export function fromInputValue(value: string): string | undefined {
  const v = value.trim();
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?$/.test(v)) return undefined;
  return parseInstant(`${v}Z`);
}

/** An instant for people: `2026-11-22 08:52:50 UTC` (milliseconds shown only when there are any). */
export function showInstant(instant: string): string {
  return `${instant.replace('T', ' ').replace(/\.000Z$|Z$/, '')} UTC`;
}
