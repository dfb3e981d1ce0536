import type { PoolClient } from 'pg';
import type { Projection, ProjectionContext, SourcedEvent } from '../projection';
import { updateKeyedRows, type KeyedTable } from '../keyed-rows';
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
 * it read from the context (insights books its weekly deltas from them).
 */
export class FlagStateProjection implements Projection {
  readonly name = 'flag-state';
  readonly writes = ['flag_state'];
  readonly scope = 'flags';

  handles(type: string): boolean {
    return FLAG_STATE_TYPES.has(type);
  }

  async apply(client: PoolClient, sourced: SourcedEvent[], context: ProjectionContext): Promise<void> {
    const events = sourced.map((s) => s.event).filter((e) => e.featureName);
    if (events.length === 0) return;
    const names = [...new Set(events.map((e) => e.featureName!))];
    const { skipped, transitions } = await updateKeyedRows(client, FLAG_STATE_TABLE, names, (current) =>
      reduceFlagState(current, events),
    );
    for (const s of skipped) context.skipped(s.eventId, s.reason);
    context.transitions.push(...transitions);
  }
}
