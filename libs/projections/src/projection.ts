import type { PoolClient } from 'pg';
import type { SourcedEvent } from './event-log/event-log.projection';

/**
 * A read model updated from events, inside the transaction of the batch that stored them.
 *
 * Rules every projection keeps (DESIGN: determinism, exactly-once):
 * - `apply` sees only events that were newly stored in the event log (an id seen twice is applied once),
 *   and only events of a known type.
 * - The result is a function of the events alone (event `createdAt`, never the processing time), and must
 *   not depend on the interleaving of events of different keys (a flag's events may come before its
 *   project's `project-created`). Read-time values (windows, staleness) are computed by the read model.
 * - An event that is valid but inconsistent (unknown project, wrong `data` shape) never throws: apply a
 *   documented fallback, or skip it and report it through `skipped`.
 * - Keep the update logic pure (a function from events to row changes) and the SQL in one place.
 */
export interface Projection {
  /** Stable name, used in metrics and logs. */
  readonly name: string;
  apply(client: PoolClient, events: SourcedEvent[], report: ProjectionReport): Promise<void>;
}

export interface ProjectionReport {
  /** Records an event that the projection could not use, with the reason (logged and counted). */
  skipped(eventId: number, reason: string): void;
}
