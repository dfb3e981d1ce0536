/**
 * The parameters of `GET /api/admin/search/events` as Unleash 8.2.0 reads them (its OpenAPI parameter schemas,
 * `normalizeQueryParams`, `parseSearchOperatorValue` and `EventService.convertToDbParams`), turned into the
 * filters of one search. Pure: query-string values in, filters or the first refusal out.
 */

import { isAsOfRefusal, parseAsOf } from '@flaglens/contract';
import { DAY_MS } from '../time';

/** The columns a search filters on (`IN (values)`; `created_at` by a bound). */
export type SearchColumn =
  'id' | 'group_id' | 'feature_name' | 'project' | 'type' | 'created_by_user_id' | 'environment';

export interface EventSearch {
  /** column IN (values), in the reference's order of the parameters */
  in: { column: SearchColumn; values: string[] }[];
  /** created_at >= this date (`yyyy-MM-dd`, read by Postgres in its time zone), inclusive */
  from: string | null;
  /** created_at < this date: the day after the `to` parameter's */
  before: string | null;
  /** free text: `data`, `tags` or `pre_data` as text ILIKE `%query%` (its `%` and `_` are wildcards) */
  query: string | null;
  /**
   * created_at <= this instant (`?at=`, UTC milliseconds, `parseAsOf`): the search as of that instant; null:
   * now. Not a parameter of the reference's (docs/design.md, "Reads as of an instant").
   */
  at: string | null;
  limit: number;
  offset: number;
}

/** A refusal: the reference's 400 (`BadDataError`) with its `details` entry, or ours for a value it fails on. */
export interface SearchRefusal {
  message: string;
  path?: string;
}

/** Unleash 8.2.0's parameter schemas, in its order (the first one that fails is the one it reports). */
const ID_PATTERN = '^(IS|IS_ANY_OF):(.*?)(,([0-9]+))*$';
const NAME_PATTERN = '^(IS|IS_ANY_OF):(.*?)(,([a-zA-Z0-9_]+))*$';
const DATE_PATTERN = '^(IS):\\d{4}-\\d{2}-\\d{2}$';
export const SEARCH_PARAMETERS: readonly { name: string; pattern?: string }[] = [
  { name: 'query' },
  { name: 'id', pattern: ID_PATTERN },
  { name: 'groupId', pattern: ID_PATTERN },
  { name: 'feature', pattern: NAME_PATTERN },
  { name: 'project', pattern: NAME_PATTERN },
  { name: 'type', pattern: NAME_PATTERN },
  { name: 'createdBy', pattern: NAME_PATTERN },
  { name: 'from', pattern: DATE_PATTERN },
  { name: 'to', pattern: DATE_PATTERN },
  { name: 'offset' },
  { name: 'limit' },
  { name: 'environment', pattern: NAME_PATTERN },
];
/** The schemas' patterns, compiled as their validator compiles them (Unicode mode). */
const COMPILED = new Map(
  SEARCH_PARAMETERS.filter((p) => p.pattern).map((p) => [p.name, new RegExp(p.pattern!, 'u')]),
);

export const SEARCH_LIMIT_DEFAULT = 50;
export const SEARCH_LIMIT_MAX = 1000;

/** `OP:v1,v2` as the reference splits it; null when the value has no operator or nothing after it. */
export function parseOperatorValue(value: string): { operator: string; values: string[] } | null {
  const m =
    /^(IS|IS_NOT|IS_ANY_OF|IS_NONE_OF|INCLUDE|DO_NOT_INCLUDE|INCLUDE_ALL_OF|INCLUDE_ANY_OF|EXCLUDE_IF_ANY_OF|EXCLUDE_ALL|IS_BEFORE|IS_ON_OR_AFTER):(.+)$/.exec(
      value,
    );
  return m ? { operator: m[1], values: m[2].split(',').map((v) => v.trim()) } : null;
}

/**
 * `limit` and `offset` as the reference takes them: `Number()` of the text, out-of-range limits (≤ 0, > 1000,
 * not a number) fall back to 50 and offsets ≤ 0 to 0, and the query builder then keeps `parseInt` of the
 * number's text (`2.5` → 2, `1e-7` → 1).
 */
export function pageOf(
  limit: string | undefined,
  offset: string | undefined,
): { limit: number; offset: number } {
  const l = Number(limit ?? SEARCH_LIMIT_DEFAULT);
  const normalizedLimit = l > 0 && l <= SEARCH_LIMIT_MAX ? l : SEARCH_LIMIT_DEFAULT;
  const o = Number(offset);
  const normalizedOffset = o > 0 ? o : 0;
  return {
    limit: parseInt(String(normalizedLimit), 10),
    offset: Math.min(parseInt(String(normalizedOffset), 10), Number.MAX_SAFE_INTEGER),
  };
}

/** A calendar date `yyyy-MM-dd` Postgres takes as a timestamp (year 1 or later, a day the month has). */
function isCalendarDate(date: string): boolean {
  const [y, m, d] = date.split('-').map(Number);
  if (y < 1 || m < 1 || m > 12 || d < 1) return false;
  return validDay(y, m, d);
}
const isLeap = (y: number) => (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
function validDay(y: number, m: number, d: number): boolean {
  const days = [31, isLeap(y) ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][m - 1];
  return d <= days;
}

/**
 * The day after `date` as the reference computes `to`'s bound (JavaScript's `new Date(date)`, which rolls
 * `2024-02-30` over to March 1st, plus one day, in UTC); null when JavaScript cannot read it (month 13).
 */
export function dayAfter(date: string): string | null {
  const t = new Date(date).getTime();
  if (Number.isNaN(t)) return null;
  const next = new Date(t + DAY_MS);
  const y = next.getUTCFullYear();
  const pad = (n: number, w = 2) => String(n).padStart(w, '0');
  return `${pad(y, 4)}-${pad(next.getUTCMonth() + 1)}-${pad(next.getUTCDate())}`;
}

/** A Postgres `integer` (the reference's `events.id` and `created_by_user_id`) as its input accepts it. */
const INTEGER = /^\s*[+-]?\d+\s*$/;
const isInt4 = (v: string) =>
  INTEGER.test(v) && Math.abs(Number(v)) <= 2_147_483_647 && Number(v) !== 2_147_483_648;

/** Where the reference's Postgres fails on a value (its 500 carries the SQL): ours is a 400 naming it. */
const valueRefused = (name: string, value: string, why: string): SearchRefusal => ({
  message: `The \`/query/${name}\` parameter ${why}. You sent ${JSON.stringify(value)}.`,
  path: `/query/${name}`,
});

const PARAMETER_COLUMNS: [string, SearchColumn][] = [
  ['createdBy', 'created_by_user_id'],
  ['feature', 'feature_name'],
  ['groupId', 'group_id'],
  ['project', 'project'],
  ['type', 'type'],
  ['environment', 'environment'],
  ['id', 'id'],
];

/**
 * The search a query string asks for, or the first refusal. `raw` is the parsed query string: a repeated
 * parameter is an array (the reference's validator refuses it: "must be string").
 */
export function parseEventSearch(raw: Record<string, unknown>): EventSearch | SearchRefusal {
  for (const { name } of SEARCH_PARAMETERS) {
    const v = raw[name];
    if (v === undefined) continue;
    if (typeof v !== 'string')
      return {
        message: `The \`/query/${name}\` property must be string. You sent ${JSON.stringify(v)}.`,
        path: `/query/${name}`,
      };
    const pattern = COMPILED.get(name);
    if (pattern && !pattern.test(v))
      return {
        message: `The \`/query/${name}\` property must match pattern "${pattern.source}". You sent ${JSON.stringify(v)}.`,
        path: `/query/${name}`,
      };
  }
  const text = (name: string) => raw[name] as string | undefined;
  // Postgres text cannot hold U+0000: the reference fails (500); a value holding it is refused here
  for (const { name } of SEARCH_PARAMETERS) {
    const v = text(name);
    if (v !== undefined && v.includes('\u0000')) return valueRefused(name, v, 'must not contain U+0000');
  }
  const search: EventSearch = {
    in: [],
    from: null,
    before: null,
    query: text('query') || null,
    at: null,
    ...pageOf(text('limit'), text('offset')),
  };
  const from = text('from') ? parseOperatorValue(text('from')!) : null;
  if (from) {
    if (!isCalendarDate(from.values[0]))
      return valueRefused('from', text('from')!, 'must be a calendar date');
    search.from = from.values[0];
  }
  const to = text('to') ? parseOperatorValue(text('to')!) : null;
  if (to) {
    const next = dayAfter(to.values[0]);
    if (next === null) return valueRefused('to', text('to')!, 'must be a date');
    search.before = next;
  }
  for (const [name, column] of PARAMETER_COLUMNS) {
    const v = text(name);
    const parsed = v ? parseOperatorValue(v) : null;
    if (!parsed) continue;
    if ((column === 'id' || column === 'created_by_user_id') && !parsed.values.every(isInt4))
      return valueRefused(name, v!, 'must hold integers');
    // IS and IS_ANY_OF (the only operators the schemas let through) both read as IN
    search.in.push({ column, values: parsed.values });
  }
  // ours, not the reference's: checked after every parameter of its
  const asOf = parseAsOf(raw.at);
  if (isAsOfRefusal(asOf)) return asOf;
  search.at = asOf.at;
  return search;
}

export const isSearchRefusal = (s: EventSearch | SearchRefusal): s is SearchRefusal => 'message' in s;
