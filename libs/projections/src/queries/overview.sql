-- overview: GET /api/admin/projects/{projectId}/overview, its state and activity
-- rendered by libs/projections/src/queries/queries.int-spec.ts; do not edit

WITH p AS (
  SELECT p.*, COALESCE(p.created_at, CASE WHEN p.seeded THEN (SELECT min(created_at) FROM event_log) END) AS created,
         LEAST(COALESCE(p.archived_at, $2::timestamptz), $2::timestamptz) AS now_at
    FROM projects p WHERE p.id = $1 AND p.exists
), w AS (
  SELECT now_at, c, pw, (c AT TIME ZONE 'UTC')::date AS c_day, (pw AT TIME ZONE 'UTC')::date AS pw_day,
         date_trunc('day', c AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' AS c_day_start,
         (date_trunc('day', c AT TIME ZONE 'UTC') + interval '1 day') AT TIME ZONE 'UTC' AS c_day_end,
         (date_trunc('day', pw AT TIME ZONE 'UTC') + interval '1 day') AT TIME ZONE 'UTC' AS pw_day_end
    FROM (SELECT now_at, now_at - interval '30 days' AS c, now_at - interval '60 days' AS pw FROM p) x
), f AS (
  SELECT f.name, f.type, f.stale, f.created_at, f.archived_at, ft.lifetime_days
    FROM flag_state f LEFT JOIN feature_types ft ON ft.id = f.type
   WHERE f.project = $1 AND NOT f.deleted
), agg AS (
  SELECT count(*) FILTER (WHERE archived_at IS NULL)::int AS total,
         count(*) FILTER (WHERE archived_at IS NULL AND stale)::int AS stale,
         count(*) FILTER (WHERE archived_at IS NULL AND NOT stale AND lifetime_days IS NOT NULL
                            AND created_at + lifetime_days * interval '24 hours' <= w.now_at)::int AS potentially_stale,
         count(*) FILTER (WHERE archived_at IS NULL AND created_at >= w.c)::int AS created_current,
         count(*) FILTER (WHERE archived_at IS NULL AND created_at BETWEEN w.pw AND w.c)::int AS created_past,
         count(*) FILTER (WHERE archived_at >= w.c)::int AS archived_current,
         count(*) FILTER (WHERE archived_at BETWEEN w.pw AND w.c)::int AS archived_past,
         -- the next instants at which a time-dependent count can change (window edges, staleness crossings)
         LEAST(min(created_at) FILTER (WHERE archived_at IS NULL AND created_at >= w.c) + interval '30 days',
               min(created_at) FILTER (WHERE archived_at IS NULL AND created_at >= w.pw) + interval '60 days',
               min(archived_at) FILTER (WHERE archived_at >= w.c) + interval '30 days',
               min(archived_at) FILTER (WHERE archived_at >= w.pw) + interval '60 days',
               min(created_at + lifetime_days * interval '24 hours')
                 FILTER (WHERE archived_at IS NULL AND NOT stale AND lifetime_days IS NOT NULL
                           AND created_at + lifetime_days * interval '24 hours' > w.now_at)) AS flags_edge
    FROM f, w
)
SELECT
       p.name, p.description, p.mode, p.default_stickiness, p.feature_limit, p.naming_pattern, p.naming_example,
       p.naming_description, p.link_templates, to_char(p.created AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS created_at, to_char(p.archived_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS archived_at,
       to_char(p.now_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS now_at, agg.total, agg.stale, agg.potentially_stale, agg.created_current,
       agg.created_past, agg.archived_current, agg.archived_past,
       (SELECT json_agg(json_build_object('type', type, 'count', n) ORDER BY type COLLATE "C")
          FROM (SELECT type, count(*)::int AS n FROM f WHERE (archived_at IS NOT NULL) = $3 GROUP BY type) tc) AS type_counts,
       (SELECT json_agg(CASE WHEN pe.default_strategy IS NULL THEN json_build_object('environment', e.name)
                             ELSE json_build_object('environment', e.name, 'defaultStrategy', pe.default_strategy) END
                        ORDER BY e.sort_order, e.name COLLATE "C")
          FROM environments e LEFT JOIN project_environments pe ON pe.project = $1 AND pe.environment = e.name
         WHERE NOT e.deleted
           AND (pe.linked IS TRUE
                OR (pe.linked IS NULL AND p.link_enabled_envs AND e.enabled
                    AND (e.created_at IS NULL OR e.created_at <= p.created)))) AS environments,
       -- a flag's usage by its key, one lookup per flag until the first hit (as a join, the plan kept by the
       -- read pool hashed the whole usage table on every read: overview.int-spec.ts)
       (EXISTS (SELECT 1 FROM project_sdk_usage s WHERE s.project = $1)
        OR EXISTS (SELECT 1 FROM f WHERE (SELECT true FROM flag_sdk_usage u WHERE u.feature_name = f.name))) AS onboarded,
       (SELECT name FROM f WHERE archived_at IS NULL ORDER BY created_at, name COLLATE "C" LIMIT 1) AS first_flag,
       -- members (semantics §3.5), and those added in the current window (the instant the project is read at)
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
             + (CASE WHEN EXISTS (SELECT 1 FROM via WHERE user_id IS NULL) THEN 1 ELSE 0 END))::int) AS members,
       (WITH m AS NOT MATERIALIZED (SELECT * FROM identity_project_members WHERE project = $1 AND ((w.now_at - interval '720 hours') IS NULL OR created_at >= (w.now_at - interval '720 hours'))),
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
             + (CASE WHEN EXISTS (SELECT 1 FROM via WHERE user_id IS NULL) THEN 1 ELSE 0 END))::int) AS members_added,
       CASE WHEN p.archived_at <= $2::timestamptz THEN NULL
        ELSE floor(extract(epoch FROM LEAST(p.archived_at, agg.flags_edge, (SELECT min(m.created_at) FROM identity_project_members m
            WHERE m.project = $1 AND m.created_at >= w.now_at - interval '720 hours') + interval '720 hours')) * 1000)::float8 END AS state_valid_until,

       to_char(COALESCE(p.last_event_at, p.created) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS updated_at,
       (SELECT release FROM unleash_release) AS unleash_release,
       CASE WHEN (SELECT release FROM unleash_release) IN ('6', '7') THEN false
            -- any enable of the project's ever (the projects projection keeps it): no instant bounds it, so the
            -- answer does not change with the read instant alone (the cache's validUntil stays exact)
            ELSE p.flag_enabled
       END AS flag_enabled,
       (SELECT COALESCE(sum(d.n), 0)::int FROM project_activity_daily d WHERE d.project = $1 AND d.day > w.c_day)
         + (SELECT count(*)::int FROM event_log a
             WHERE a.project = $1 AND a.known_type AND a.created_at >= w.c AND a.created_at < w.c_day_end) AS activity_current,
       (SELECT COALESCE(sum(d.n), 0)::int FROM project_activity_daily d
         WHERE d.project = $1 AND d.day > w.pw_day AND d.day < w.c_day)
         + (SELECT count(*)::int FROM event_log a
             WHERE a.project = $1 AND a.known_type AND a.created_at >= w.pw AND a.created_at < w.pw_day_end)
         + (SELECT count(*)::int FROM event_log a
             WHERE a.project = $1 AND a.known_type AND a.created_at >= w.c_day_start AND a.created_at <= w.c) AS activity_past,
       -- time to production: the first production enable of each release flag, from the event log
       (SELECT array_agg(floor(extract(epoch FROM (t.first_at - f.created_at)) / 86400)::int)
          FROM f CROSS JOIN LATERAL (
  SELECT min(x.enabled_at) AS first_at
    FROM environments e CROSS JOIN LATERAL (
           SELECT created_at AS enabled_at FROM event_log
            WHERE type = 'feature-environment-enabled' AND feature_name = f.name
              AND environment = e.name AND created_at > f.created_at
            ORDER BY created_at LIMIT 1) x
   WHERE NOT e.deleted AND e.type = 'production') t
         WHERE f.type = 'release' AND t.first_at IS NOT NULL) AS prod_days,
       CASE WHEN p.archived_at <= $2::timestamptz THEN NULL
        ELSE floor(extract(epoch FROM LEAST(p.archived_at, (SELECT min(a.created_at) FROM event_log a WHERE a.project = $1 AND a.known_type AND a.created_at >= w.c)
            + interval '30 days', (SELECT min(a.created_at) FROM event_log a WHERE a.project = $1 AND a.known_type AND a.created_at >= w.pw)
            + interval '60 days')) * 1000)::float8 END AS activity_valid_until
  FROM p, w, agg;
