import { CLIENT_METRICS_EVENT_TYPE, CLIENT_REGISTER_EVENT_TYPE, type FlagEvent } from '@flaglens/contract';

/**
 * The exact counts behind the event search's `total` (`event_search_counts`, docs/performance-reads.md "Event
 * search"): how many searchable events (not SDK traffic) the log holds per UTC day of `created_at`, per value
 * of one filtered column (`dim`; '' counts every event), and whether the event has a project (callers who are
 * not root Admins see only those). A search with no filter or one of these columns, bounded by whole days or
 * not at all, is answered by summing a few hundred rows instead of counting millions. Pure: the projector
 * adds each batch's deltas in the batch's transaction, so the rows stay exact, whatever the order of batches.
 */

/** SDK traffic: events on the topic that Unleash's log never holds, so the search never finds them. */
export const SDK_EVENT_TYPES: readonly string[] = [CLIENT_METRICS_EVENT_TYPE, CLIENT_REGISTER_EVENT_TYPE];

/** The columns counted one by one ('': none, every event). Null values are not counted (no filter finds them). */
export const COUNTED_COLUMNS = ['type', 'project', 'environment', 'created_by_user_id'] as const;
export type CountedColumn = (typeof COUNTED_COLUMNS)[number];
/**
 * '': every event; a column: each of its values; `project+type` and `environment+type`: each pair (the UI's usual
 * pairs of filters; the type in `value2`).
 */
export type CountDimension = '' | CountedColumn | 'project+type' | 'environment+type';

/** The pairs of filters counted together: a column and the type. */
export const COUNTED_PAIRS = ['project', 'environment'] as const;

export const isCountedColumn = (c: string): c is CountedColumn =>
  (COUNTED_COLUMNS as readonly string[]).includes(c);

/** One row's key: [dim, value, value2 (the pair's type, else ''), day (yyyy-MM-dd, UTC), withProject]. */
export type SearchCountKey = [CountDimension, string, string, string, boolean];

/** The UTC day of a normalised `createdAt` (`toISOString()`: the day is everything before the `T`). */
export const utcDay = (createdAt: string): string => createdAt.slice(0, createdAt.indexOf('T'));

/**
 * How many events each row of `event_search_counts` gains from `events` (events newly stored, each once), keyed
 * by the JSON of its SearchCountKey.
 */
export function searchCountDeltas(
  events: readonly Pick<FlagEvent, 'type' | 'createdAt' | 'project' | 'environment' | 'createdByUserId'>[],
): Map<string, number> {
  const deltas = new Map<string, number>();
  const add = (dim: CountDimension, value: string, day: string, withProject: boolean, value2 = '') => {
    const k = JSON.stringify([dim, value, value2, day, withProject] satisfies SearchCountKey);
    deltas.set(k, (deltas.get(k) ?? 0) + 1);
  };
  for (const e of events) {
    if (SDK_EVENT_TYPES.includes(e.type)) continue;
    const day = utcDay(e.createdAt);
    const withProject = e.project !== null;
    add('', '', day, withProject);
    add('type', e.type, day, withProject);
    if (e.project !== null) add('project', e.project, day, true);
    if (e.project !== null) add('project+type', e.project, day, true, e.type);
    if (e.environment !== null) add('environment', e.environment, day, withProject);
    if (e.environment !== null) add('environment+type', e.environment, day, withProject, e.type);
    if (e.createdByUserId !== null) add('created_by_user_id', String(e.createdByUserId), day, withProject);
  }
  return deltas;
}
