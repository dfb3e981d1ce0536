-- identity_apply(changes jsonb): applies a whole batch's identity changes, in order, in one round trip.
--
-- The executable definition of the identity rules in SQL; identity-state.ts is the same rules in memory
-- (the tests' oracle, identity.int-spec.ts keeps both equal). Every aggregate carries the id of the last
-- event applied to it, memberships are versioned per (project, principal), a project's deletion is a reset
-- mark. Each element of `changes`: `kind`, `e` (event id), `at` (event time) and the change's fields
-- (identity-changes.ts); for memberships `roleRef`/`roleId`/`roleName` as stored.
--
-- A routine, not a migration: `npm run migrate` (and a rebuild's new version) re-applies this file with
-- CREATE OR REPLACE after the migrations, in every projection version's schema, so a rule change is a diff
-- of this file. `SET search_path FROM CURRENT` binds the function to the version it is created in.
CREATE OR REPLACE FUNCTION identity_apply(changes jsonb) RETURNS void
LANGUAGE plpgsql SET search_path FROM CURRENT AS $fn$
DECLARE
  ch jsonb;
  k text;
  ev bigint;
  at_ timestamptz;
  proj text;
  pk text;
  pid bigint;
  gid bigint;
  cur_last bigint;
  pend_found boolean;
  pend_users bigint[];
  pend_name text;
  pend_last bigint;
  pend_count int;
  pend_details jsonb;
  pend_by text;
  pend_at timestamptz;
  first_at timestamptz;
BEGIN
  FOR ch IN SELECT value FROM jsonb_array_elements(changes) LOOP
    k := ch->>'kind';
    ev := (ch->>'e')::bigint;
    at_ := (ch->>'at')::timestamptz;
    proj := ch->>'project';
    pk := ch->>'principal';
    pid := (ch->>'principalId')::bigint;

    IF k = 'user-upsert' THEN
      INSERT INTO identity_users (id, name, username, email, root_role_id, last_event_id)
      VALUES ((ch->>'id')::bigint, ch->>'name', ch->>'username', ch->>'email', (ch->>'rootRoleId')::bigint, ev)
      ON CONFLICT (id) DO UPDATE SET name = EXCLUDED.name, username = EXCLUDED.username, email = EXCLUDED.email,
        root_role_id = CASE WHEN ch ? 'rootRoleId' THEN EXCLUDED.root_role_id ELSE identity_users.root_role_id END,
        last_event_id = EXCLUDED.last_event_id
      WHERE identity_users.last_event_id <= EXCLUDED.last_event_id;

    ELSIF k = 'user-delete' THEN
      INSERT INTO identity_users (id, deleted) VALUES ((ch->>'id')::bigint, true)
      ON CONFLICT (id) DO UPDATE SET deleted = true;

    ELSIF k = 'role-upsert' THEN
      INSERT INTO identity_roles (id, name, type, description, last_event_id)
      VALUES ((ch->>'id')::bigint, ch->>'name', ch->>'type', ch->>'description', ev)
      ON CONFLICT (id) DO UPDATE SET name = EXCLUDED.name, type = EXCLUDED.type,
        description = EXCLUDED.description, last_event_id = EXCLUDED.last_event_id
      WHERE identity_roles.last_event_id <= EXCLUDED.last_event_id;

    ELSIF k = 'role-delete' THEN
      INSERT INTO identity_roles (id, name, type, deleted) VALUES ((ch->>'id')::bigint, '', 'custom', true)
      ON CONFLICT (id) DO UPDATE SET deleted = true;

    ELSIF k = 'group-provisional' THEN
      -- a live group of that name, or a deleted one whose history is newer: this creation is already bound
      PERFORM 1 FROM identity_groups WHERE name = ch->>'name' AND (NOT deleted OR last_event_id >= ev);
      IF NOT FOUND THEN
        INSERT INTO identity_pending_groups (name, users, last_event_id, details, created_by, created_at)
        VALUES (ch->>'name', ARRAY(SELECT u::bigint FROM jsonb_array_elements_text(ch->'users') u), ev,
                ch->'details', ch->>'by', at_)
        ON CONFLICT (name) DO UPDATE SET users = EXCLUDED.users, last_event_id = EXCLUDED.last_event_id,
          details = EXCLUDED.details, created_by = EXCLUDED.created_by, created_at = EXCLUDED.created_at
        WHERE identity_pending_groups.last_event_id <= EXCLUDED.last_event_id;
      END IF;

    ELSIF k = 'group-upsert' THEN
      gid := (ch->>'id')::bigint;
      SELECT last_event_id INTO cur_last FROM identity_groups WHERE id = gid;
      IF FOUND AND ev < cur_last THEN CONTINUE; END IF;
      pend_found := false;
      IF ch->>'name' IS NOT NULL THEN
        DELETE FROM identity_pending_groups WHERE name = ch->>'name' AND last_event_id <= ev
        RETURNING users, details, created_by, created_at INTO pend_users, pend_details, pend_by, pend_at;
        pend_found := FOUND;
      END IF;
      INSERT INTO identity_groups (id, name, last_event_id, details)
      VALUES (gid, ch->>'name', ev, COALESCE(ch->'details', CASE WHEN pend_found THEN pend_details END))
      ON CONFLICT (id) DO UPDATE SET name = COALESCE(EXCLUDED.name, identity_groups.name),
        last_event_id = EXCLUDED.last_event_id, details = COALESCE(EXCLUDED.details, identity_groups.details);
      -- the provisional group's users joined at its creation; then this event's list: users kept keep when and
      -- by whom they were added (the reference inserts only the new ones), new ones join now
      IF pend_found THEN
        INSERT INTO identity_group_users (group_id, user_id, created_at, created_by)
        SELECT gid, u, pend_at, pend_by FROM unnest(pend_users) u ON CONFLICT DO NOTHING;
      END IF;
      IF jsonb_typeof(ch->'users') = 'array' THEN
        DELETE FROM identity_group_users WHERE group_id = gid
          AND user_id NOT IN (SELECT u::bigint FROM jsonb_array_elements_text(ch->'users') u);
        INSERT INTO identity_group_users (group_id, user_id, created_at, created_by)
        SELECT gid, u::bigint, at_, ch->>'by' FROM jsonb_array_elements_text(ch->'users') u ON CONFLICT DO NOTHING;
      END IF;

    ELSIF k = 'group-delete' THEN
      INSERT INTO identity_groups (id, name, deleted, last_event_id) VALUES ((ch->>'id')::bigint, ch->>'name', true, ev)
      ON CONFLICT (id) DO UPDATE SET deleted = true, name = COALESCE(identity_groups.name, EXCLUDED.name),
        last_event_id = GREATEST(identity_groups.last_event_id, EXCLUDED.last_event_id);
      IF ch->>'name' IS NOT NULL THEN
        DELETE FROM identity_pending_groups WHERE name = ch->>'name' AND last_event_id <= ev;
      END IF;

    ELSIF k = 'group-user' THEN
      gid := (ch->>'groupId')::bigint;
      SELECT last_event_id INTO cur_last FROM identity_groups WHERE id = gid;
      IF NOT FOUND THEN
        -- an unknown group id: bind it to the only provisional group, if there is exactly one
        SELECT count(*) INTO pend_count FROM identity_pending_groups;
        pend_name := NULL;
        IF pend_count = 1 THEN
          SELECT name, users, last_event_id, details, created_by, created_at
            INTO pend_name, pend_users, pend_last, pend_details, pend_by, pend_at FROM identity_pending_groups;
          IF pend_last > ev THEN pend_name := NULL; END IF;
        END IF;
        INSERT INTO identity_groups (id, name, details)
        VALUES (gid, pend_name, CASE WHEN pend_name IS NOT NULL THEN pend_details END);
        IF pend_name IS NOT NULL THEN
          DELETE FROM identity_pending_groups WHERE name = pend_name;
          INSERT INTO identity_group_users (group_id, user_id, created_at, created_by)
          SELECT gid, u, pend_at, pend_by FROM unnest(pend_users) u ON CONFLICT DO NOTHING;
        END IF;
      ELSIF ev < cur_last THEN
        CONTINUE;
      END IF;
      UPDATE identity_groups SET last_event_id = ev WHERE id = gid;
      IF (ch->>'present')::boolean THEN
        INSERT INTO identity_group_users (group_id, user_id, created_at, created_by)
        VALUES (gid, (ch->>'userId')::bigint, at_, ch->>'by') ON CONFLICT DO NOTHING;
      ELSE
        DELETE FROM identity_group_users WHERE group_id = gid AND user_id = (ch->>'userId')::bigint;
      END IF;

    ELSIF k = 'project-upsert' THEN
      INSERT INTO identity_project_states (project, present, archived, mode, last_event_id)
      VALUES (proj, true, false, COALESCE(ch->>'mode', 'open'), ev)
      ON CONFLICT (project) DO UPDATE SET present = true,
        archived = CASE WHEN (ch->>'created')::boolean THEN false ELSE identity_project_states.archived END,
        mode = COALESCE(ch->>'mode', identity_project_states.mode), last_event_id = EXCLUDED.last_event_id
      WHERE identity_project_states.last_event_id <= EXCLUDED.last_event_id;

    ELSIF k = 'project-archive' THEN
      INSERT INTO identity_project_states (project, present, archived, last_event_id)
      VALUES (proj, true, (ch->>'archived')::boolean, ev)
      ON CONFLICT (project) DO UPDATE SET present = true, archived = EXCLUDED.archived,
        last_event_id = EXCLUDED.last_event_id
      WHERE identity_project_states.last_event_id <= EXCLUDED.last_event_id;

    ELSIF k = 'project-delete' THEN
      INSERT INTO identity_project_states (project, present, archived, mode, reset_event_id, last_event_id)
      VALUES (proj, false, false, 'open', ev, ev)
      -- the mode stays: a deleted private project's history stays hidden from non-members
      ON CONFLICT (project) DO UPDATE SET present = false, archived = false,
        reset_event_id = EXCLUDED.reset_event_id, last_event_id = EXCLUDED.last_event_id
      WHERE identity_project_states.last_event_id <= EXCLUDED.last_event_id;
      IF FOUND THEN
        DELETE FROM identity_project_members WHERE project = proj;
        DELETE FROM identity_favorites WHERE target = 'project' AND name = proj AND last_event_id <= ev;
      END IF;

    ELSIF k IN ('access-add', 'access-replace', 'access-remove-all', 'access-remove-one', 'access-change-role') THEN
      -- the version guard: older than the project's last deletion, or than this principal's last access event
      INSERT INTO identity_member_versions (project, principal_kind, principal_id, last_event_id)
      SELECT proj, pk, pid, ev
       WHERE ev > COALESCE((SELECT reset_event_id FROM identity_project_states WHERE project = proj), 0)
      ON CONFLICT (project, principal_kind, principal_id) DO UPDATE SET last_event_id = EXCLUDED.last_event_id
        WHERE identity_member_versions.last_event_id <= EXCLUDED.last_event_id;
      IF NOT FOUND THEN CONTINUE; END IF;

      IF k = 'access-add' THEN
        INSERT INTO identity_project_members (project, principal_kind, principal_id, role_ref, role_id, role_name, created_at)
        VALUES (proj, pk, pid, ch->>'roleRef', (ch->>'roleId')::bigint, ch->>'roleName', at_)
        ON CONFLICT DO NOTHING;
      ELSIF k = 'access-replace' THEN
        DELETE FROM identity_project_members WHERE project = proj AND principal_kind = pk AND principal_id = pid;
        INSERT INTO identity_project_members (project, principal_kind, principal_id, role_ref, role_id, role_name, created_at)
        SELECT proj, pk, pid, 'id:' || r, r::bigint, NULL, at_ FROM jsonb_array_elements_text(ch->'roleIds') r
        ON CONFLICT DO NOTHING;
      ELSIF k = 'access-remove-all' THEN
        DELETE FROM identity_project_members WHERE project = proj AND principal_kind = pk AND principal_id = pid;
      ELSIF k = 'access-remove-one' THEN
        -- a role by name also matches a row stored by the id of the (live) role with that name, and back
        DELETE FROM identity_project_members
         WHERE project = proj AND principal_kind = pk AND principal_id = pid AND (
               role_id = COALESCE((ch->>'roleId')::bigint,
                                  (SELECT min(id) FROM identity_roles WHERE name = ch->>'roleName' AND NOT deleted))
            OR role_name = COALESCE(ch->>'roleName',
                                    (SELECT name FROM identity_roles WHERE id = (ch->>'roleId')::bigint)));
      ELSE -- access-change-role: the principal's roles become this one, keeping the first membership time
        WITH gone AS (
          DELETE FROM identity_project_members WHERE project = proj AND principal_kind = pk AND principal_id = pid
          RETURNING created_at)
        SELECT min(created_at) INTO first_at FROM gone;
        IF first_at IS NOT NULL THEN
          INSERT INTO identity_project_members (project, principal_kind, principal_id, role_ref, role_id, role_name, created_at)
          VALUES (proj, pk, pid, 'id:' || (ch->>'roleId'), (ch->>'roleId')::bigint, NULL, first_at)
          ON CONFLICT DO NOTHING;
        END IF;
      END IF;

    ELSIF k = 'favorite' THEN
      -- a project favourite older than the project's last deletion changes nothing
      INSERT INTO identity_favorites (user_id, target, name, is_favorite, last_event_id)
      SELECT (ch->>'userId')::bigint, ch->>'target', ch->>'name', (ch->>'on')::boolean, ev
       WHERE ch->>'target' <> 'project'
          OR ev > COALESCE((SELECT reset_event_id FROM identity_project_states WHERE project = ch->>'name'), 0)
      ON CONFLICT (user_id, target, name) DO UPDATE SET is_favorite = EXCLUDED.is_favorite,
        last_event_id = EXCLUDED.last_event_id
      WHERE identity_favorites.last_event_id <= EXCLUDED.last_event_id;

    ELSE
      RAISE EXCEPTION 'identity_apply: unknown change kind %', k;
    END IF;
  END LOOP;
END
$fn$;
