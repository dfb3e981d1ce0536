import { parseInstant } from './as-of';

/**
 * The event log's filters: kept in the URL's fragment (`#/events?type=feature-created&from=2026-01-01`) so a
 * view can be shared, and turned into the search route's parameters (`type=IS:feature-created`). Pure.
 */
export interface EventFilters {
  /** free text (`query`) */
  q?: string;
  feature?: string;
  project?: string;
  type?: string;
  /** a user id (`createdBy`) */
  createdBy?: string;
  environment?: string;
  /** yyyy-MM-dd, inclusive */
  from?: string;
  /** yyyy-MM-dd, that whole day */
  to?: string;
  /** one event, by its id (a compare view's link to the event of a change) */
  id?: string;
  offset?: number;
  /** the instant the list is read as of (`at=`), UTC milliseconds; none: now */
  at?: string;
}

export const FILTER_KEYS = [
  'q',
  'feature',
  'project',
  'type',
  'createdBy',
  'environment',
  'from',
  'to',
  'id',
] as const;
export type FilterKey = (typeof FILTER_KEYS)[number];

export const EVENTS_PAGE = 50;

const DAY = /^\d{4}-\d{2}-\d{2}$/;

/** The filters a URL's parameters hold (unknown or malformed ones dropped). */
export function filtersFromParams(params: URLSearchParams): EventFilters {
  const f: EventFilters = {};
  for (const k of FILTER_KEYS) {
    const v = params.get(k)?.trim();
    if (!v) continue;
    if ((k === 'from' || k === 'to') && !DAY.test(v)) continue;
    if (k === 'createdBy' && !/^-?\d+$/.test(v)) continue;
    if (k === 'id' && !/^\d+$/.test(v)) continue;
    if (v.includes('\n')) continue;
    f[k] = v;
  }
  const offset = Number(params.get('offset'));
  if (Number.isInteger(offset) && offset > 0) f.offset = offset;
  const at = parseInstant(params.get('at'));
  if (at) f.at = at;
  return f;
}

/** The URL parameters of a view (empty ones left out), in a fixed order. */
export function filtersToParams(f: EventFilters): Record<string, string | undefined> {
  const out: Record<string, string | undefined> = {};
  for (const k of FILTER_KEYS) out[k] = f[k] || undefined;
  out.offset = f.offset && f.offset > 0 ? String(f.offset) : undefined;
  out.at = f.at || undefined;
  return out;
}

/**
 * The search route's query string for a view: `IS:` values, `from`/`to` as days, the page's offset and limit,
 * and `at` when the view is of the past.
 */
export function searchQuery(f: EventFilters, limit = EVENTS_PAGE): string {
  const p = new URLSearchParams();
  if (f.q) p.set('query', f.q);
  for (const k of ['id', 'feature', 'project', 'type', 'createdBy', 'environment', 'from', 'to'] as const)
    if (f[k]) p.set(k, `IS:${f[k]}`);
  p.set('offset', String(f.offset ?? 0));
  p.set('limit', String(limit));
  if (f.at) p.set('at', f.at);
  return p.toString();
}
