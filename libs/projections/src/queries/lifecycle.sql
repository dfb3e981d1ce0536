-- lifecycle: GET /api/admin/insights/lifecycle
-- rendered by libs/projections/src/queries/queries.int-spec.ts; do not edit

SELECT f.name, f.type, f.archived_at IS NOT NULL AS archived, to_char(f.archived_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS "flagArchivedAt",
       to_char(l.started_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS "startedAt", to_char(l.completed_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS "completedAt",
       l.completed_status AS "completedStatus", to_char(l.archived_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS "archivedAt",
       l.enables::text AS enables,
       (SELECT coalesce(json_agg(json_build_array(s.environment, to_char(s.first_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'), to_char(s.last_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
                                                  COALESCE(
            (SELECT CASE WHEN sp.to_at > GREATEST(s.first_at, l.started_at)
                          AND GREATEST(s.first_at, l.started_at) <= s.last_at THEN json_build_object('environment', sp.environment, 'from', to_char(sp.from_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'), 'to', to_char(sp.to_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')) END
               FROM lifecycle_enable_spans sp
              WHERE sp.feature_name = f.name AND sp.environment = s.environment
                AND sp.from_at <= GREATEST(s.first_at, l.started_at)
              ORDER BY sp.from_at DESC LIMIT 1),
            (SELECT json_build_object('environment', sp.environment, 'from', to_char(sp.from_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'), 'to', to_char(sp.to_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))
               FROM lifecycle_enable_spans sp
              WHERE sp.feature_name = f.name AND sp.environment = s.environment
                AND sp.from_at > GREATEST(s.first_at, l.started_at) AND sp.from_at <= s.last_at
              ORDER BY sp.from_at LIMIT 1)))
                                 ORDER BY s.environment), '[]')::text
          FROM lifecycle_sightings s WHERE s.feature_name = f.name) AS sightings
  FROM flag_state f JOIN lifecycle_flags l ON l.name = f.name AND NOT l.deleted
 WHERE NOT f.deleted AND ($1::text[] IS NULL OR f.project = ANY($1::text[]))
   AND NOT (f.project = ANY($2::text[])) AND ($3::text IS NULL OR f.name = $3::text)
 ORDER BY f.name;

SELECT name, type FROM environments WHERE NOT deleted;
