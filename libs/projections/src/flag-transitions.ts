/**
 * A batch's flag transitions: each flag's state before and after each of the batch's events. flag-state makes
 * them (its rows are these states), the projections after it read them from the context (projection.ts
 * `ProjectionContext.transitions`), and the change feed names a moved flag's projects from them. They are a
 * fact of the batch the machinery carries, so they are declared here, apart from any projection.
 */

/** The current state of one flag (table `flag_state`). */
export interface FlagRow {
  name: string;
  project: string;
  type: string;
  stale: boolean;
  createdAt: string;
  archivedAt: string | null;
  deleted: boolean;
}

/** One event's effect on its flag: the state before (null: none yet) and after it. */
export interface FlagTransition {
  eventId: number;
  /** the event's time (`createdAt`) */
  at: string;
  name: string;
  before: FlagRow | null;
  after: FlagRow;
}
