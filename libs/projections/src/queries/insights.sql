-- insights: GET /api/admin/insights (and the deprecated dashboard/executive)
-- rendered by libs/projections/src/queries/queries.int-spec.ts; do not edit

WITH
weeks AS (
  SELECT ws::date AS ws, LEAST(ws::date + 6, $1::date) AS d,
         (LEAST(ws::date + 6, $1::date) + 1)::timestamp AT TIME ZONE 'UTC' AS e,
         to_char(ws, 'IYYY-IW') AS week,
         (LEAST(ws::date + 6, $1::date) BETWEEN COALESCE($2::date, '-infinity') AND COALESCE($3::date, 'infinity')) AS inr
    FROM (SELECT (min(created_at) AT TIME ZONE 'UTC')::date AS first FROM event_log) f,
         generate_series(date_trunc('week', GREATEST(f.first, $2::date, $4::date)),
                         date_trunc('week', LEAST($1::date, $3::date)), interval '7 days') ws
   WHERE f.first <= $1::date
)
SELECT c::text AS cut, c = base_at AS base
  FROM (SELECT CASE WHEN (SELECT min(ws) FROM weeks WHERE inr) >= s.valid_from
                         AND (SELECT (min(created_at) AT TIME ZONE 'UTC')::date FROM event_log) >= s.first_day
                    THEN LEAST(s.valid_until, date_trunc('week', $1::date)::date) ELSE '-infinity'::date END AS c,
               s.base_at
          FROM insights_weeks_stored s) x;

WITH
weeks AS (
  SELECT ws::date AS ws, LEAST(ws::date + 6, $1::date) AS d,
         (LEAST(ws::date + 6, $1::date) + 1)::timestamp AT TIME ZONE 'UTC' AS e,
         to_char(ws, 'IYYY-IW') AS week,
         (LEAST(ws::date + 6, $1::date) BETWEEN COALESCE($2::date, '-infinity') AND COALESCE($3::date, 'infinity')) AS inr
    FROM (SELECT (min(created_at) AT TIME ZONE 'UTC')::date AS first FROM event_log) f,
         generate_series(date_trunc('week', GREATEST(f.first, $2::date, $4::date)),
                         date_trunc('week', LEAST($1::date, $3::date)), interval '7 days') ws
   WHERE f.first <= $1::date
) SELECT to_char(d, 'YYYY-MM-DD') AS d, week FROM weeks WHERE inr ORDER BY ws;

WITH
weeks AS (
  SELECT ws::date AS ws, LEAST(ws::date + 6, $1::date) AS d,
         (LEAST(ws::date + 6, $1::date) + 1)::timestamp AT TIME ZONE 'UTC' AS e,
         to_char(ws, 'IYYY-IW') AS week,
         (LEAST(ws::date + 6, $1::date) BETWEEN COALESCE($2::date, '-infinity') AND COALESCE($3::date, 'infinity')) AS inr
    FROM (SELECT (min(created_at) AT TIME ZONE 'UTC')::date AS first FROM event_log) f,
         generate_series(date_trunc('week', GREATEST(f.first, $2::date, $4::date)),
                         date_trunc('week', LEAST($1::date, $3::date)), interval '7 days') ws
   WHERE f.first <= $1::date
),
r AS (SELECT min(ws) AS lo, max(ws) AS hi FROM weeks WHERE inr),
fe AS (
  SELECT f.project, date_trunc('week', t.first_at AT TIME ZONE 'UTC')::date AS ws,
         floor(extract(epoch FROM (t.first_at - f.created_at)) / 86400)::int AS days
    FROM flag_state f CROSS JOIN LATERAL (
  SELECT min(x.enabled_at) AS first_at
    FROM environments e CROSS JOIN LATERAL (
           SELECT created_at AS enabled_at FROM event_log
            WHERE type = 'feature-environment-enabled' AND feature_name = f.name
              AND environment = e.name AND created_at > f.created_at
            ORDER BY created_at LIMIT 1) x
   WHERE NOT e.deleted AND e.type = 'production') t
   WHERE NOT f.deleted AND f.type = 'release' AND t.first_at IS NOT NULL
     AND (t.first_at AT TIME ZONE 'UTC')::date <= $1::date AND f.project <> ALL($5::text[])
)
SELECT fe.project, to_char(GREATEST(fe.ws, r.lo), 'YYYY-MM-DD') AS ws, sum(fe.days)::int AS days,
       count(*)::int AS n
  FROM fe, r WHERE fe.ws <= r.hi GROUP BY 1, 2 ORDER BY 1, 2;

WITH
weeks AS (
  SELECT ws::date AS ws, LEAST(ws::date + 6, $1::date) AS d,
         (LEAST(ws::date + 6, $1::date) + 1)::timestamp AT TIME ZONE 'UTC' AS e,
         to_char(ws, 'IYYY-IW') AS week,
         (LEAST(ws::date + 6, $1::date) BETWEEN COALESCE($2::date, '-infinity') AND COALESCE($3::date, 'infinity')) AS inr
    FROM (SELECT (min(created_at) AT TIME ZONE 'UTC')::date AS first FROM event_log) f,
         generate_series(date_trunc('week', GREATEST(f.first, $2::date, $4::date)),
                         date_trunc('week', LEAST($1::date, $3::date)), interval '7 days') ws
   WHERE f.first <= $1::date
),
r AS (SELECT min(ws) AS lo, max(d) AS hi FROM weeks WHERE inr),
f AS (SELECT * FROM flag_state WHERE NOT deleted AND project <> ALL($5::text[])),
x AS (
  SELECT project, created_at AS at, 'created' AS k, type FROM f
  UNION ALL SELECT project, archived_at, 'archived', '' FROM f WHERE archived_at IS NOT NULL
  UNION ALL SELECT f.project, t.first_at, 'production', '' FROM f CROSS JOIN LATERAL (
  SELECT min(x.enabled_at) AS first_at
    FROM environments e CROSS JOIN LATERAL (
           SELECT created_at AS enabled_at FROM event_log
            WHERE type = 'feature-environment-enabled' AND feature_name = f.name
              AND environment = e.name AND created_at > f.created_at
            ORDER BY created_at LIMIT 1) x
   WHERE NOT e.deleted AND e.type = 'production') t
             WHERE t.first_at IS NOT NULL
)
SELECT x.project, to_char(date_trunc('week', x.at AT TIME ZONE 'UTC'), 'YYYY-MM-DD') AS ws, x.k, x.type,
       count(*)::int AS n
  FROM x, r WHERE (x.at AT TIME ZONE 'UTC')::date BETWEEN r.lo AND r.hi
 GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, x.type COLLATE "C";

SELECT DISTINCT project FROM insights_project_changes WHERE live AND project <> ALL($1::text[]);

WITH
weeks AS (
  SELECT ws::date AS ws, LEAST(ws::date + 6, $1::date) AS d,
         (LEAST(ws::date + 6, $1::date) + 1)::timestamp AT TIME ZONE 'UTC' AS e,
         to_char(ws, 'IYYY-IW') AS week,
         (LEAST(ws::date + 6, $1::date) BETWEEN COALESCE($2::date, '-infinity') AND COALESCE($3::date, 'infinity')) AS inr
    FROM (SELECT (min(created_at) AT TIME ZONE 'UTC')::date AS first FROM event_log) f,
         generate_series(date_trunc('week', GREATEST(f.first, $2::date, $4::date)),
                         date_trunc('week', LEAST($1::date, $3::date)), interval '7 days') ws
   WHERE f.first <= $1::date
),
pc AS (
  SELECT project, at, live, lead(at) OVER (PARTITION BY project ORDER BY event_id) AS nxt
    FROM insights_project_changes
), plive AS (
  SELECT DISTINCT w.ws, pc.project FROM weeks w JOIN pc ON pc.live AND pc.at < w.e AND (pc.nxt IS NULL OR pc.nxt >= w.e)
   WHERE w.inr AND pc.project <> ALL($5::text[])
), fd AS (
  SELECT project, date_trunc('week', day)::date AS ws, sum(d_total) AS t, sum(d_stale) AS s, 0 AS ps
    FROM insights_flag_deltas WHERE day <= $1::date GROUP BY 1, 2
  UNION ALL
  SELECT f.project, date_trunc('week', GREATEST(f.day, f.created_day + ft.lifetime_days))::date, 0, 0, sum(f.d_fresh)
    FROM insights_flag_deltas f JOIN feature_types ft ON ft.id = f.type AND ft.lifetime_days > 0
   WHERE GREATEST(f.day, f.created_day + ft.lifetime_days) <= $1::date GROUP BY 1, 2
), r AS (
  SELECT min(ws) AS lo, max(ws) AS hi FROM weeks WHERE inr
), fr AS (
  -- deltas before the range collapse into its first week (the running sums start from them)
  SELECT fd.project, GREATEST(fd.ws, r.lo) AS ws, fd.t, fd.s, fd.ps FROM fd, r WHERE fd.ws <= r.hi
), grid AS (
  SELECT w.ws, w.d, w.week, p.project, COALESCE(sum(fr.t), 0) AS t, COALESCE(sum(fr.s), 0) AS s,
         COALESCE(sum(fr.ps), 0) AS ps
    FROM weeks w CROSS JOIN (SELECT DISTINCT project FROM plive) p
    LEFT JOIN fr ON fr.project = p.project AND fr.ws = w.ws
   WHERE w.inr
   GROUP BY 1, 2, 3, 4
), cum AS (
  SELECT ws, d, week, project, sum(t) OVER k AS total, sum(s) OVER k AS stale, sum(ps) OVER k AS ps
    FROM grid WINDOW k AS (PARTITION BY project ORDER BY ws)
)
SELECT to_char(c.d, 'YYYY-MM-DD') AS d, to_char(c.ws, 'YYYY-MM-DD') AS ws, c.week, c.project,
       c.total::int AS total, c.stale::int AS stale, c.ps::int AS ps
  FROM cum c JOIN plive USING (ws, project)
 ORDER BY c.ws, c.project;

WITH
weeks AS (
  SELECT ws::date AS ws, LEAST(ws::date + 6, $1::date) AS d,
         (LEAST(ws::date + 6, $1::date) + 1)::timestamp AT TIME ZONE 'UTC' AS e,
         to_char(ws, 'IYYY-IW') AS week,
         (LEAST(ws::date + 6, $1::date) BETWEEN COALESCE($2::date, '-infinity') AND COALESCE($3::date, 'infinity')) AS inr
    FROM (SELECT (min(created_at) AT TIME ZONE 'UTC')::date AS first FROM event_log) f,
         generate_series(date_trunc('week', GREATEST(f.first, $2::date, $4::date)),
                         date_trunc('week', LEAST($1::date, $3::date)), interval '7 days') ws
   WHERE f.first <= $1::date
),
r AS (SELECT min(d) AS lo, max(d) AS hi FROM weeks WHERE inr),
span AS (
  SELECT a.user_id, a.first_day AS s, a.last_day + 59 AS e
    FROM insights_user_weeks a, r
   -- a user-week's days are within its week (its Monday to its Sunday), so a span reaching r.lo starts from a
   -- week on or after r.lo - 65: the bound that lets the key's index read those weeks alone
   WHERE a.week <= r.hi AND a.week >= r.lo - 65 AND a.last_day + 59 >= r.lo
), marked AS (
  SELECT user_id, s, e,
         CASE WHEN s <= max(e) OVER (PARTITION BY user_id ORDER BY s, e ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) + 1
              THEN 0 ELSE 1 END AS starts
    FROM span
), island AS (
  SELECT user_id, s, e, sum(starts) OVER (PARTITION BY user_id ORDER BY s, e) AS n FROM marked
), active AS MATERIALIZED (
  SELECT GREATEST(min(i.s), (u.created_at AT TIME ZONE 'UTC')::date) AS s,
         LEAST(max(i.e), COALESCE((u.deleted_at AT TIME ZONE 'UTC')::date - 1, 'infinity')) AS e
    FROM island i JOIN insights_users u ON u.id = i.user_id AND u.created_at IS NOT NULL
   GROUP BY i.user_id, i.n, u.created_at, u.deleted_at
)
SELECT to_char(w.d, 'YYYY-MM-DD') AS d, to_char(w.ws, 'YYYY-MM-DD') AS ws,
       (SELECT count(*) FROM insights_users u
         WHERE u.created_at < w.e AND (u.deleted_at IS NULL OR u.deleted_at >= w.e))::int AS total,
       (SELECT count(*) FROM active a WHERE a.s <= w.d AND a.e >= w.d)::int AS active
  FROM weeks w WHERE w.inr ORDER BY w.ws;

WITH
weeks AS (
  SELECT ws::date AS ws, LEAST(ws::date + 6, $1::date) AS d,
         (LEAST(ws::date + 6, $1::date) + 1)::timestamp AT TIME ZONE 'UTC' AS e,
         to_char(ws, 'IYYY-IW') AS week,
         (LEAST(ws::date + 6, $1::date) BETWEEN COALESCE($2::date, '-infinity') AND COALESCE($3::date, 'infinity')) AS inr
    FROM (SELECT (min(created_at) AT TIME ZONE 'UTC')::date AS first FROM event_log) f,
         generate_series(date_trunc('week', GREATEST(f.first, $2::date, $4::date)),
                         date_trunc('week', LEAST($1::date, $3::date)), interval '7 days') ws
   WHERE f.first <= $1::date
)
SELECT to_char(w.d, 'YYYY-MM-DD') AS d, w.week, e.type, sum(u.n)::bigint AS n
  FROM weeks w
  JOIN insights_env_project_updates u ON u.day BETWEEN w.ws AND w.d AND u.project <> ALL($5::text[])
  JOIN environments e ON e.name = u.environment AND NOT e.deleted
 WHERE w.inr
 GROUP BY w.ws, w.d, w.week, e.type
 ORDER BY w.ws, e.type;

WITH
weeks AS (
  SELECT ws::date AS ws, LEAST(ws::date + 6, $1::date) AS d,
         (LEAST(ws::date + 6, $1::date) + 1)::timestamp AT TIME ZONE 'UTC' AS e,
         to_char(ws, 'IYYY-IW') AS week,
         (LEAST(ws::date + 6, $1::date) BETWEEN COALESCE($2::date, '-infinity') AND COALESCE($3::date, 'infinity')) AS inr
    FROM (SELECT (min(created_at) AT TIME ZONE 'UTC')::date AS first FROM event_log) f,
         generate_series(date_trunc('week', GREATEST(f.first, $2::date, $4::date)),
                         date_trunc('week', LEAST($1::date, $3::date)), interval '7 days') ws
   WHERE f.first <= $1::date
)
SELECT to_char(w.d, 'YYYY-MM-DD') AS d, to_char(w.ws, 'YYYY-MM-DD') AS ws, w.week, x.project, sum(x.yes)::bigint AS yes, sum(x.no)::bigint AS no,
       count(DISTINCT x.app)::int AS apps, count(DISTINCT x.feature)::int AS flags,
       count(DISTINCT x.environment)::int AS envs
  FROM weeks w
  JOIN LATERAL (
    SELECT COALESCE(f.project, NULLIF(m.project_hint, '')) AS project, m.app, m.feature, m.environment, m.yes, m.no
      FROM insights_metrics m LEFT JOIN flag_state f ON f.name = m.feature AND NOT f.deleted
     WHERE m.day BETWEEN w.ws AND w.d
  ) x ON x.project IS NOT NULL AND x.project <> ALL($5::text[])
 WHERE w.inr
 GROUP BY w.ws, w.d, w.week, x.project
 ORDER BY w.ws, x.project;

WITH m AS NOT MATERIALIZED (SELECT * FROM identity_project_members WHERE project = ANY($1::text[])),
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
       SELECT 'direct' AS kind, project AS key, array_agg(user_id::text) AS ids FROM direct GROUP BY project
       UNION ALL
       SELECT 'groups', project, array_agg(group_id::text) FROM grp GROUP BY project
       UNION ALL
       SELECT 'users', group_id::text, array_agg(user_id::text) FROM live
        WHERE group_id IN (SELECT group_id FROM grp) GROUP BY group_id;
