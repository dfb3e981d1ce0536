-- profile: GET /api/admin/user/profile
-- rendered by libs/projections/src/queries/queries.int-spec.ts; do not edit

WITH p AS (
         SELECT $2::text AS project FROM identity_users WHERE id = $1 AND root_role_id IS NOT NULL
         UNION SELECT project FROM identity_project_members WHERE principal_kind = 'user' AND principal_id = $1
         UNION SELECT project FROM identity_project_members
                WHERE principal_kind = 'group' AND principal_id IN (SELECT gu.group_id FROM identity_group_users gu
  JOIN identity_groups g ON g.id = gu.group_id AND NOT g.deleted WHERE gu.user_id = $1))
       SELECT COALESCE(array_agg(p.project ORDER BY p.project COLLATE "C"), '{}') AS projects
         FROM p LEFT JOIN identity_project_states s ON s.project = p.project
        WHERE s.project IS NULL OR (NOT s.archived AND (s.present OR s.reset_event_id = 0));

SELECT COALESCE(json_agg(json_build_object(
                'id', g.id, 'name', COALESCE(g.name, ''), 'rootRole', g.details->'rootRole',
                'description', COALESCE(g.details->>'description', ''),
                'mappingsSSO', COALESCE(g.details->'mappingsSSO', '[]'::jsonb),
                'createdBy', COALESCE(gu.created_by, $2), 'createdAt', to_char(gu.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
                'scimId', g.details->'scimId') ORDER BY g.id), '[]') AS groups
         FROM identity_group_users gu JOIN identity_groups g ON g.id = gu.group_id AND NOT g.deleted
        WHERE gu.user_id = $1;

SELECT * FROM (
         SELECT 0 AS o, r.id::int AS id, r.name, r.type, r.description FROM identity_users u
           JOIN identity_roles r ON r.id = u.root_role_id AND r.type IN ('root', 'root-custom')
          WHERE u.id = $1
         UNION ALL
         SELECT 1, id::int, name, type, description FROM identity_roles WHERE id = $2) t
       ORDER BY o LIMIT 1;
