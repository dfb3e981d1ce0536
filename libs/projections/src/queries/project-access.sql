-- project-access: who may see a project (every project read)
-- rendered by libs/projections/src/queries/queries.int-spec.ts; do not edit

SELECT CASE
         WHEN EXISTS (SELECT 1 FROM identity_users u JOIN identity_roles r ON r.id = u.root_role_id
                       AND r.type IN ('root', 'root-custom') WHERE u.id = $1 AND NOT u.deleted AND r.id = $3) THEN true
         WHEN s.project IS NULL OR NOT s.present THEN false
         WHEN s.mode <> 'private' THEN true
         WHEN EXISTS (SELECT 1 FROM identity_project_members m WHERE m.project = $2 AND (
                (m.principal_kind = 'user' AND m.principal_id = $1)
             OR (m.principal_kind = 'group' AND m.principal_id IN (SELECT gu.group_id FROM identity_group_users gu
  JOIN identity_groups g ON g.id = gu.group_id AND NOT g.deleted WHERE gu.user_id = $1)))) THEN true
         ELSE false END AS visible,
         COALESCE((SELECT is_favorite FROM identity_favorites
                    WHERE user_id = $1 AND target = 'project' AND name = $2), false) AS favorite
         FROM (SELECT 1) one LEFT JOIN identity_project_states s ON s.project = $2;
