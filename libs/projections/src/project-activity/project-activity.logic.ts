import type { FlagEvent } from '@flaglens/contract';
import { utcDay } from '../time';

export interface ActivityRow {
  project: string;
  createdAt: string;
  eventId: number;
}

/**
 * Project activity (semantics §3.3): every event whose `project` is set counts for that project, whatever
 * its type (a multi-project token string like `p1,p2` counts for no real project, as in the reference).
 * Its exact instants are the event log's rows (read-time windows are exact); the projection keeps day counts.
 */
export function activityRows(events: readonly FlagEvent[]): ActivityRow[] {
  return events
    .filter(countsForProject)
    .map((e) => ({ project: e.project!, createdAt: e.createdAt, eventId: e.id }));
}

/** Whether an event counts for its project's activity (it names one). */
const countsForProject = (e: FlagEvent): boolean => !!e.project;

export interface DailyCount {
  project: string;
  /** The UTC day, `YYYY-MM-DD`. */
  day: string;
  n: number;
}

/**
 * The batch's `activityRows` counted per project and UTC day: what the projection adds to
 * `project_activity_daily`. A batch has few distinct (project, day) pairs, so the statement carries those
 * instead of one array element per event.
 */
export function dailyCounts(events: readonly FlagEvent[]): DailyCount[] {
  const byKey = new Map<string, DailyCount>();
  for (const e of events) {
    if (!countsForProject(e)) continue;
    const day = utcDay(e.createdAt);
    const key = `${e.project}\u0000${day}`;
    const c = byKey.get(key);
    if (c === undefined) byKey.set(key, { project: e.project!, day, n: 1 });
    else c.n++;
  }
  return [...byKey.values()];
}
