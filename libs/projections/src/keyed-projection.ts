import type { FlagEvent } from '@flaglens/contract';
import type { Skip } from './event-fields';
import { updateKeyedRows, type KeyedTable } from './keyed-rows';
import type { Projection, ProjectionContext, Scope } from './projection';

/**
 * A projection of state rows kept by key, declared: the table it keeps, the events it handles, the keys a
 * batch's events change, and its pure `evolve` (Emmett's name: the rows as they are and the events, to the
 * rows as they become). The machinery does the rest: it loads and locks the keys' rows in key order, runs
 * `evolve`, writes the rows it returns, and reports what it skipped.
 */
export interface KeyedProjectionSpec<Row, Result extends { rows: Row[]; skipped: readonly Skip[] }> {
  readonly name: string;
  readonly scope: Scope;
  readonly table: KeyedTable<Row>;
  /** The event types it handles. */
  readonly types: ReadonlySet<string>;
  /** The keys of the rows the events change (loaded before `evolve`), or every row ('all'). */
  rowsOf(events: readonly FlagEvent[]): readonly string[] | 'all';
  /** The pure update: the stored rows of those keys (a key without one: none yet) and the events, in order. */
  evolve(current: Map<string, Row>, events: readonly FlagEvent[]): Result;
  /** What else the batch learns from the result (flag-state's transitions for the projections after it). */
  publish?(result: Result, context: ProjectionContext): void;
  /** As Projection: the change feed's keys of an event, when not its scope's default. */
  keysOf?(event: FlagEvent): readonly string[];
}

/** The projection a declaration describes. */
export function keyedProjection<Row, Result extends { rows: Row[]; skipped: readonly Skip[] }>(
  spec: KeyedProjectionSpec<Row, Result>,
): Projection {
  const projection: Projection = {
    name: spec.name,
    scope: spec.scope,
    writes: [spec.table.table],
    handles: (type) => spec.types.has(type),
    async apply(client, sourced, context) {
      const events = sourced.map((s) => s.event);
      const keys = spec.rowsOf(events);
      // no key to load: the events change no row, yet evolve still says which of them it could not use
      const result =
        keys !== 'all' && keys.length === 0
          ? spec.evolve(new Map(), events)
          : await updateKeyedRows(client, spec.table, keys, (current) => spec.evolve(current, events));
      for (const s of result.skipped) context.skipped(s.eventId, s.reason);
      spec.publish?.(result, context);
    },
  };
  return spec.keysOf ? { ...projection, keysOf: spec.keysOf } : projection;
}
