-- flag-events-at: GET /api/admin/events/{featureName}?at=: a flag's list as of an instant
-- rendered by libs/projections/src/queries/queries.int-spec.ts; do not edit

SELECT body FROM event_log WHERE feature_name = $1 AND (project IS NULL OR project <> ALL($2::text[])) AND (other_projects IS NULL OR NOT other_projects && $2::text[]) AND created_at <= $3::timestamptz
  ORDER BY created_at DESC, id DESC LIMIT $4;
