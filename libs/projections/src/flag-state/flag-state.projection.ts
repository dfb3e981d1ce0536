import { keyedProjection } from '../keyed-projection';
import type { KeyedTable } from '../keyed-rows';
import { FLAG_STATE_TYPES, reduceFlagState, type FlagRow } from './flag-state.logic';

export const FLAG_STATE_TABLE: KeyedTable<FlagRow> = {
  table: 'flag_state',
  columns: [
    { field: 'name', column: 'name', type: 'text' },
    { field: 'project', column: 'project', type: 'text' },
    { field: 'type', column: 'type', type: 'text' },
    { field: 'stale', column: 'stale', type: 'boolean' },
    { field: 'createdAt', column: 'created_at', type: 'timestamptz' },
    { field: 'archivedAt', column: 'archived_at', type: 'timestamptz' },
    { field: 'deleted', column: 'deleted', type: 'boolean' },
  ],
};

/**
 * Each flag's current state (`flag_state`), and each event's transition of it, which the projections after
 * it read from the context (insights books its weekly deltas from them). An event without a flag changes none.
 */
export const flagStateProjection = keyedProjection({
  name: 'flag-state',
  scope: 'flags',
  table: FLAG_STATE_TABLE,
  types: FLAG_STATE_TYPES,
  rowsOf: (events) => [...new Set(events.flatMap((e) => (e.featureName ? [e.featureName] : [])))],
  evolve: (current, events) =>
    reduceFlagState(
      current,
      events.filter((e) => e.featureName),
    ),
  publish: ({ transitions }, context) => context.transitions.push(...transitions),
});
