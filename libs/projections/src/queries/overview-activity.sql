-- overview-activity: the same overview, its state known: the activity alone
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
)
SELECT
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
  FROM p, w;
