-- project-status: GET /api/admin/projects/{projectId}/status
-- rendered by libs/projections/src/queries/queries.int-spec.ts; do not edit

SELECT count(*)::int AS total,
       count(*) FILTER (WHERE f.stale)::int AS stale,
       count(*) FILTER (WHERE NOT f.stale AND t.lifetime_days IS NOT NULL
                          AND $2::timestamptz - f.created_at >= t.lifetime_days * interval '1 day')::int AS aged,
       count(*) FILTER (WHERE f.stale OR (t.lifetime_days IS NOT NULL
                          AND $2::timestamptz > f.created_at + t.lifetime_days * interval '1 day'))::int AS "staleOrAged",
       (WITH m AS NOT MATERIALIZED (SELECT * FROM identity_project_members WHERE project = $1 AND (NULL::timestamptz IS NULL OR created_at >= NULL::timestamptz)),
       direct AS (
         SELECT m.project, m.principal_id AS user_id FROM m
           LEFT JOIN identity_users u ON u.id = m.principal_id
           LEFT JOIN identity_roles r ON r.id = COALESCE(m.role_id,
  (SELECT min(x.id) FROM identity_roles x WHERE x.name = m.role_name AND NOT x.deleted))
          WHERE m.principal_kind = 'user' AND NOT COALESCE(u.deleted, false) AND r.type IS DISTINCT FROM 'root'),
       grp AS (
         SELECT DISTINCT m.project, m.principal_id AS group_id FROM m
           LEFT JOIN identity_groups g ON g.id = m.principal_id
          WHERE m.principal_kind = 'group' AND NOT COALESCE(g.deleted, false)),
       live AS (
         SELECT gu.group_id, gu.user_id FROM identity_group_users gu
           LEFT JOIN identity_users u ON u.id = gu.user_id WHERE NOT COALESCE(u.deleted, false)),
       via AS (SELECT grp.project, grp.group_id, live.user_id FROM grp LEFT JOIN live ON live.group_id = grp.group_id)
       SELECT ((SELECT count(*) FROM (SELECT user_id FROM direct UNION SELECT user_id FROM via WHERE user_id IS NOT NULL) x)
             + (CASE WHEN EXISTS (SELECT 1 FROM via WHERE user_id IS NULL) THEN 1 ELSE 0 END))::int) AS members
  FROM flag_state f LEFT JOIN feature_types t ON t.id = f.type
 WHERE f.project = $1 AND NOT f.deleted AND f.archived_at IS NULL;

WITH b AS (SELECT $2::timestamptz - interval '1 year' AS lo, $2::timestamptz AS hi,
                  (($2::timestamptz - interval '1 year') AT TIME ZONE 'UTC')::date AS first,
                  ($2::timestamptz AT TIME ZONE 'UTC')::date AS last),
days AS (
  SELECT c.day, c.n FROM event_search_counts c, b
   WHERE c.dim = 'project' AND c.value = $1 AND c.value2 = '' AND c.with_project
     AND c.day > b.first AND c.day < b.last
  UNION ALL
  SELECT (e.created_at AT TIME ZONE 'UTC')::date, 1 FROM event_log e, b
   WHERE e.project = $1 AND e.created_at >= b.lo AND e.created_at < (b.first + 1)::timestamp AT TIME ZONE 'UTC'
     AND e.created_at <= b.hi AND e.type NOT IN ('client-metrics', 'client-register')
  UNION ALL
  SELECT (e.created_at AT TIME ZONE 'UTC')::date, 1 FROM event_log e, b
   WHERE e.project = $1 AND e.created_at >= b.last::timestamp AT TIME ZONE 'UTC' AND e.created_at <= b.hi AND e.type NOT IN ('client-metrics', 'client-register')
)
SELECT to_char(day, 'YYYY-MM-DD') AS date, sum(n)::int AS count FROM days GROUP BY day HAVING sum(n) > 0 ORDER BY day;

SELECT body FROM event_log WHERE type = ANY($1::text[]) ORDER BY created_at, id;

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
