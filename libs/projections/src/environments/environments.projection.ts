import type { PoolClient } from 'pg';
import type { Projection, ProjectionContext, SourcedEvent } from '../projection';
import { updateKeyedRows, type KeyedTable } from '../keyed-rows';
import { ENVIRONMENT_TYPES, reduceEnvironments, type EnvironmentRow } from './environments.logic';

const ENVIRONMENTS_TABLE: KeyedTable<EnvironmentRow> = {
  table: 'environments',
  columns: [
    { field: 'name', column: 'name', type: 'text' },
    { field: 'type', column: 'type', type: 'text' },
    { field: 'sortOrder', column: 'sort_order', type: 'int' },
    { field: 'enabled', column: 'enabled', type: 'boolean' },
    { field: 'deleted', column: 'deleted', type: 'boolean' },
    { field: 'createdAt', column: 'created_at', type: 'timestamptz' },
  ],
};

/** The environment catalogue: every project reads it (its links, time to production by type). */
export class EnvironmentsProjection implements Projection {
  readonly name = 'environments';
  readonly writes = ['environments'];
  readonly scope = 'instance';

  handles(type: string): boolean {
    return ENVIRONMENT_TYPES.has(type);
  }

  async apply(client: PoolClient, sourced: SourcedEvent[], context: ProjectionContext): Promise<void> {
    const { skipped } = await updateKeyedRows(client, ENVIRONMENTS_TABLE, 'all', (current) =>
      reduceEnvironments(
        current,
        sourced.map((s) => s.event),
      ),
    );
    for (const s of skipped) context.skipped(s.eventId, s.reason);
  }
}
