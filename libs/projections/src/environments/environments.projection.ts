import { keyedProjection } from '../keyed-projection';
import type { KeyedTable } from '../keyed-rows';
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

/**
 * The environment catalogue: every project reads it (its links, time to production by type). An event may
 * reorder every environment, so a batch loads them all (a handful).
 */
export const environmentsProjection = keyedProjection({
  name: 'environments',
  scope: 'instance',
  table: ENVIRONMENTS_TABLE,
  types: ENVIRONMENT_TYPES,
  rowsOf: () => 'all',
  evolve: reduceEnvironments,
});
