-- hidden-projects: the private projects a caller may not see (lists and reports)
-- rendered by libs/projections/src/queries/queries.int-spec.ts; do not edit

SELECT COALESCE(array_agg(s.project ORDER BY s.project), '{}') AS hidden
         FROM identity_project_states s
        WHERE s.mode = 'private'
          AND NOT EXISTS (SELECT 1 FROM identity_users u JOIN identity_roles r ON r.id = u.root_role_id
                           WHERE u.id = $1 AND NOT u.deleted AND r.id = $2)
          AND NOT EXISTS (SELECT 1 FROM identity_project_members m WHERE m.project = s.project AND (
                 (m.principal_kind = 'user' AND m.principal_id = $1)
              OR (m.principal_kind = 'group' AND m.principal_id IN (SELECT gu.group_id FROM identity_group_users gu
  JOIN identity_groups g ON g.id = gu.group_id AND NOT g.deleted WHERE gu.user_id = $1))));
