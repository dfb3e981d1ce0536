-- event-creators: GET /api/admin/event-creators
-- rendered by libs/projections/src/queries/queries.int-spec.ts; do not edit

WITH RECURSIVE ids AS (
               (SELECT created_by_user_id AS uid FROM event_log WHERE created_by_user_id IS NOT NULL
                   AND type NOT IN ('client-metrics', 'client-register') ORDER BY created_by_user_id LIMIT 1)
               UNION ALL
               SELECT (SELECT created_by_user_id FROM event_log WHERE created_by_user_id > ids.uid
                          AND type NOT IN ('client-metrics', 'client-register') ORDER BY created_by_user_id LIMIT 1)
                 FROM ids WHERE ids.uid IS NOT NULL),
             creators AS (
               SELECT uid, 0 AS o FROM ids WHERE uid IS NOT NULL
               UNION ALL
               SELECT NULL, 1 WHERE EXISTS (SELECT 1 FROM event_log WHERE created_by_user_id IS NULL AND type NOT IN ('client-metrics', 'client-register')))
             SELECT c.uid AS id,
                    CASE WHEN c.uid = -1337 THEN 'Unleash System' WHEN c.uid = -42 THEN 'Unleash Admin Token'
                         ELSE COALESCE(CASE WHEN u.deleted THEN u.name || '(Deleted)' ELSE u.name END, e.created_by)
                    END AS name,
                    CASE WHEN u.deleted THEN NULL ELSE u.username END AS username,
                    CASE WHEN u.deleted THEN NULL ELSE u.email END AS email
               FROM creators c
               LEFT JOIN identity_users u ON u.id = c.uid
               CROSS JOIN LATERAL (SELECT COALESCE(
                   (SELECT created_by FROM event_log WHERE created_by_user_id = c.uid AND type NOT IN ('client-metrics', 'client-register')
                     ORDER BY created_at, id LIMIT 1),
                   (SELECT created_by FROM event_log WHERE c.uid IS NULL AND created_by_user_id IS NULL AND type NOT IN ('client-metrics', 'client-register')
                     ORDER BY created_at, id LIMIT 1)) AS created_by) e
              ORDER BY c.o, c.uid;
