/**
 * The event log's indexes that serve the event search alone (its free-text trigram index, and one per filtered
 * column in the answer's order; event-log-search.migration.ts, event-search-speed.migration.ts): no projection
 * reads them while applying, so a rebuild builds them after its bulk replay and a replay as of an instant does
 * without them.
 */
export const SEARCH_INDEXES: readonly string[] = [
  'event_log_search_text_trgm_idx',
  ...['type', 'project', 'environment', 'created_by_user_id', 'group_id'].map(
    (c) => `event_log_${c}_created_idx`,
  ),
];
