-- search-events: GET /api/admin/search/events, no filter, as a root Admin
-- rendered by libs/projections/src/queries/queries.int-spec.ts; do not edit

SELECT body FROM event_log WHERE type NOT IN ('client-metrics', 'client-register') ORDER BY created_at DESC, id DESC
               LIMIT $1 OFFSET $2;

SELECT (SELECT COALESCE(sum(n), 0) FROM event_search_counts WHERE dim = $1 AND value = ANY($2::text[]) AND value2 = '') AS n;
