import { data, str } from '../event-fields';
import { keyedProjection } from '../keyed-projection';
import type { KeyedTable } from '../keyed-rows';
import { evolveFeatureTypes, type FeatureTypeRow } from './feature-types.logic';

const FEATURE_TYPES_TABLE: KeyedTable<FeatureTypeRow> = {
  table: 'feature_types',
  columns: [
    { field: 'id', column: 'id', type: 'text' },
    { field: 'lifetimeDays', column: 'lifetime_days', type: 'int' },
  ],
};

/** Feature types' lifetimes: every project's health and potentially stale flags read them. */
export const featureTypesProjection = keyedProjection({
  name: 'feature-types',
  scope: 'instance',
  table: FEATURE_TYPES_TABLE,
  types: new Set(['feature-type-updated']),
  rowsOf: (events) => [...new Set(events.flatMap((e) => str(data(e).id) ?? []))],
  evolve: evolveFeatureTypes,
});
