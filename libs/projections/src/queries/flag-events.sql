-- flag-events: GET /api/admin/events/{featureName}: a flag's whole list
-- rendered by libs/projections/src/queries/queries.int-spec.ts; do not edit

SELECT body FROM event_log WHERE feature_name = $1 AND (project IS NULL OR project <> ALL($2::text[])) AND (other_projects IS NULL OR NOT other_projects && $2::text[]) ORDER BY created_at DESC, id DESC LIMIT $3;
