import type { FlagEvent } from '@flaglens/contract';

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
    .filter((e) => !!e.project)
    .map((e) => ({ project: e.project!, createdAt: e.createdAt, eventId: e.id }));
}
