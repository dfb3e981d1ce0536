import type { PoolClient } from 'pg';
import { IdentityChange, IdentityChangeSet, PrincipalKind, RoleRef, roleRefKey } from './identity-changes';

/**
 * Applies identity changes to the tables of identity.migration.ts, inside the caller's transaction.
 * The rules are those of IdentityState (identity-state.ts), statement by statement. Identity events are
 * rare, so one statement per change is fine.
 */
export async function applyIdentityChanges(c: PoolClient, set: IdentityChangeSet): Promise<void> {
  for (const ch of set.changes) await applyOne(c, ch, set.eventId, set.at);
}

async function accessAllowed(
  c: PoolClient,
  project: string,
  kind: PrincipalKind,
  id: number,
  eventId: number,
): Promise<boolean> {
  const reset = await c.query<{ reset_event_id: string }>(
    `SELECT reset_event_id FROM identity_project_states WHERE project = $1`,
    [project],
  );
  if (eventId <= Number(reset.rows[0]?.reset_event_id ?? 0)) return false;
  const r = await c.query(
    `INSERT INTO identity_member_versions (project, principal_kind, principal_id, last_event_id)
     VALUES ($1, $2, $3, $4)
     ON CONFLICT (project, principal_kind, principal_id) DO UPDATE SET last_event_id = EXCLUDED.last_event_id
       WHERE identity_member_versions.last_event_id <= EXCLUDED.last_event_id`,
    [project, kind, id, eventId],
  );
  return r.rowCount === 1;
}

async function addMember(
  c: PoolClient,
  project: string,
  kind: PrincipalKind,
  id: number,
  role: RoleRef,
  at: string,
): Promise<void> {
  await c.query(
    `INSERT INTO identity_project_members (project, principal_kind, principal_id, role_ref, role_id, role_name, created_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT DO NOTHING`,
    [
      project,
      kind,
      id,
      roleRefKey(role),
      'id' in role ? role.id : null,
      'name' in role ? role.name : null,
      at,
    ],
  );
}

const PRINCIPAL = `project = $1 AND principal_kind = $2 AND principal_id = $3`;

async function applyOne(c: PoolClient, ch: IdentityChange, eventId: number, at: string): Promise<void> {
  switch (ch.kind) {
    case 'user-upsert':
      await c.query(
        `INSERT INTO identity_users (id, name, username, email, root_role_id, last_event_id)
         VALUES ($1, $2, $3, $4, $5, $6)
         ON CONFLICT (id) DO UPDATE SET name = EXCLUDED.name, username = EXCLUDED.username, email = EXCLUDED.email,
           root_role_id = CASE WHEN $7 THEN EXCLUDED.root_role_id ELSE identity_users.root_role_id END,
           last_event_id = EXCLUDED.last_event_id
         WHERE identity_users.last_event_id <= EXCLUDED.last_event_id`,
        [ch.id, ch.name, ch.username, ch.email, ch.rootRoleId ?? null, eventId, ch.rootRoleId !== undefined],
      );
      return;
    case 'user-delete':
      await c.query(
        `INSERT INTO identity_users (id, deleted) VALUES ($1, true) ON CONFLICT (id) DO UPDATE SET deleted = true`,
        [ch.id],
      );
      return;
    case 'role-upsert':
      await c.query(
        `INSERT INTO identity_roles (id, name, type, description, last_event_id) VALUES ($1, $2, $3, $4, $5)
         ON CONFLICT (id) DO UPDATE SET name = EXCLUDED.name, type = EXCLUDED.type,
           description = EXCLUDED.description, last_event_id = EXCLUDED.last_event_id
         WHERE identity_roles.last_event_id <= EXCLUDED.last_event_id`,
        [ch.id, ch.name, ch.type, ch.description, eventId],
      );
      return;
    case 'role-delete':
      await c.query(
        `INSERT INTO identity_roles (id, name, type, deleted) VALUES ($1, '', 'custom', true)
         ON CONFLICT (id) DO UPDATE SET deleted = true`,
        [ch.id],
      );
      return;
    case 'group-provisional': {
      // a live group of that name, or a deleted one whose history is newer: this creation is already bound
      const live = await c.query(
        `SELECT 1 FROM identity_groups WHERE name = $1 AND (NOT deleted OR last_event_id >= $2)`,
        [ch.name, eventId],
      );
      if (live.rowCount) return;
      await c.query(
        `INSERT INTO identity_pending_groups (name, users, last_event_id) VALUES ($1, $2, $3)
         ON CONFLICT (name) DO UPDATE SET users = EXCLUDED.users, last_event_id = EXCLUDED.last_event_id
         WHERE identity_pending_groups.last_event_id <= EXCLUDED.last_event_id`,
        [ch.name, ch.users, eventId],
      );
      return;
    }
    case 'group-upsert': {
      const cur = await c.query<{ last_event_id: string }>(
        `SELECT last_event_id FROM identity_groups WHERE id = $1`,
        [ch.id],
      );
      if (cur.rowCount && eventId < Number(cur.rows[0].last_event_id)) return;
      const pending =
        ch.name === null
          ? null
          : ((
              await c.query<{ users: string[] }>(
                `DELETE FROM identity_pending_groups WHERE name = $1 AND last_event_id <= $2 RETURNING users`,
                [ch.name, eventId],
              )
            ).rows[0] ?? null);
      await c.query(
        `INSERT INTO identity_groups (id, name, last_event_id) VALUES ($1, $2, $3)
         ON CONFLICT (id) DO UPDATE SET name = COALESCE(EXCLUDED.name, identity_groups.name),
           last_event_id = EXCLUDED.last_event_id`,
        [ch.id, ch.name, eventId],
      );
      if (ch.users !== undefined) {
        await c.query(`DELETE FROM identity_group_users WHERE group_id = $1`, [ch.id]);
        await insertGroupUsers(c, ch.id, ch.users);
      } else if (pending) {
        await insertGroupUsers(c, ch.id, pending.users.map(Number));
      }
      return;
    }
    case 'group-delete':
      await c.query(
        `INSERT INTO identity_groups (id, name, deleted, last_event_id) VALUES ($1, $2, true, $3)
         ON CONFLICT (id) DO UPDATE SET deleted = true, name = COALESCE(identity_groups.name, EXCLUDED.name),
           last_event_id = GREATEST(identity_groups.last_event_id, EXCLUDED.last_event_id)`,
        [ch.id, ch.name, eventId],
      );
      if (ch.name !== null)
        await c.query(`DELETE FROM identity_pending_groups WHERE name = $1 AND last_event_id <= $2`, [
          ch.name,
          eventId,
        ]);
      return;
    case 'group-user': {
      const cur = await c.query<{ last_event_id: string }>(
        `SELECT last_event_id FROM identity_groups WHERE id = $1`,
        [ch.groupId],
      );
      if (!cur.rowCount) {
        // an unknown group id: bind it to the only provisional group, if there is exactly one
        const pending = await c.query<{ name: string; users: string[]; last_event_id: string }>(
          `SELECT name, users, last_event_id FROM identity_pending_groups`,
        );
        const only = pending.rowCount === 1 && Number(pending.rows[0].last_event_id) <= eventId;
        await c.query(`INSERT INTO identity_groups (id, name) VALUES ($1, $2)`, [
          ch.groupId,
          only ? pending.rows[0].name : null,
        ]);
        if (only) {
          await c.query(`DELETE FROM identity_pending_groups WHERE name = $1`, [pending.rows[0].name]);
          await insertGroupUsers(c, ch.groupId, pending.rows[0].users.map(Number));
        }
      } else if (eventId < Number(cur.rows[0].last_event_id)) return;
      await c.query(`UPDATE identity_groups SET last_event_id = $2 WHERE id = $1`, [ch.groupId, eventId]);
      if (ch.present)
        await c.query(
          `INSERT INTO identity_group_users (group_id, user_id) VALUES ($1, $2) ON CONFLICT DO NOTHING`,
          [ch.groupId, ch.userId],
        );
      else
        await c.query(`DELETE FROM identity_group_users WHERE group_id = $1 AND user_id = $2`, [
          ch.groupId,
          ch.userId,
        ]);
      return;
    }
    case 'project-upsert':
      await c.query(
        `INSERT INTO identity_project_states (project, present, archived, mode, last_event_id)
         VALUES ($1, true, false, COALESCE($3, 'open'), $4)
         ON CONFLICT (project) DO UPDATE SET present = true,
           archived = CASE WHEN $2 THEN false ELSE identity_project_states.archived END,
           mode = COALESCE($3, identity_project_states.mode), last_event_id = EXCLUDED.last_event_id
         WHERE identity_project_states.last_event_id <= EXCLUDED.last_event_id`,
        [ch.project, ch.created, ch.mode ?? null, eventId],
      );
      return;
    case 'project-archive':
      await c.query(
        `INSERT INTO identity_project_states (project, present, archived, last_event_id) VALUES ($1, true, $2, $3)
         ON CONFLICT (project) DO UPDATE SET present = true, archived = EXCLUDED.archived,
           last_event_id = EXCLUDED.last_event_id
         WHERE identity_project_states.last_event_id <= EXCLUDED.last_event_id`,
        [ch.project, ch.archived, eventId],
      );
      return;
    case 'project-delete': {
      const r = await c.query(
        `INSERT INTO identity_project_states (project, present, archived, mode, reset_event_id, last_event_id)
         VALUES ($1, false, false, 'open', $2, $2)
         ON CONFLICT (project) DO UPDATE SET present = false, archived = false, mode = 'open',
           reset_event_id = EXCLUDED.reset_event_id, last_event_id = EXCLUDED.last_event_id
         WHERE identity_project_states.last_event_id <= EXCLUDED.last_event_id`,
        [ch.project, eventId],
      );
      if (r.rowCount !== 1) return;
      await c.query(`DELETE FROM identity_project_members WHERE project = $1`, [ch.project]);
      await c.query(
        `DELETE FROM identity_favorites WHERE target = 'project' AND name = $1 AND last_event_id <= $2`,
        [ch.project, eventId],
      );
      return;
    }
    case 'access-add':
      if (!(await accessAllowed(c, ch.project, ch.principal, ch.principalId, eventId))) return;
      await addMember(c, ch.project, ch.principal, ch.principalId, ch.role, at);
      return;
    case 'access-replace':
      if (!(await accessAllowed(c, ch.project, ch.principal, ch.principalId, eventId))) return;
      await c.query(`DELETE FROM identity_project_members WHERE ${PRINCIPAL}`, [
        ch.project,
        ch.principal,
        ch.principalId,
      ]);
      for (const id of ch.roleIds) await addMember(c, ch.project, ch.principal, ch.principalId, { id }, at);
      return;
    case 'access-remove-all':
      if (!(await accessAllowed(c, ch.project, ch.principal, ch.principalId, eventId))) return;
      await c.query(`DELETE FROM identity_project_members WHERE ${PRINCIPAL}`, [
        ch.project,
        ch.principal,
        ch.principalId,
      ]);
      return;
    case 'access-remove-one': {
      if (!(await accessAllowed(c, ch.project, ch.principal, ch.principalId, eventId))) return;
      // a role by name also matches a row stored by the id of the (live) role with that name, and back
      const byId = 'id' in ch.role ? ch.role.id : null;
      const byName = 'name' in ch.role ? ch.role.name : null;
      await c.query(
        `DELETE FROM identity_project_members WHERE ${PRINCIPAL} AND (
           role_id = COALESCE($4::bigint, (SELECT min(id) FROM identity_roles WHERE name = $5 AND NOT deleted))
           OR role_name = COALESCE($5::text, (SELECT name FROM identity_roles WHERE id = $4)))`,
        [ch.project, ch.principal, ch.principalId, byId, byName],
      );
      return;
    }
    case 'access-change-role': {
      if (!(await accessAllowed(c, ch.project, ch.principal, ch.principalId, eventId))) return;
      const gone = await c.query<{ created_at: Date }>(
        `DELETE FROM identity_project_members WHERE ${PRINCIPAL} RETURNING created_at`,
        [ch.project, ch.principal, ch.principalId],
      );
      if (gone.rowCount === 0) return;
      const first = gone.rows.map((r) => r.created_at.toISOString()).sort()[0];
      await addMember(c, ch.project, ch.principal, ch.principalId, { id: ch.roleId }, first);
      return;
    }
    case 'favorite':
      if (ch.target === 'project') {
        const reset = await c.query<{ reset_event_id: string }>(
          `SELECT reset_event_id FROM identity_project_states WHERE project = $1`,
          [ch.name],
        );
        if (eventId <= Number(reset.rows[0]?.reset_event_id ?? 0)) return;
      }
      await c.query(
        `INSERT INTO identity_favorites (user_id, target, name, is_favorite, last_event_id) VALUES ($1, $2, $3, $4, $5)
         ON CONFLICT (user_id, target, name) DO UPDATE SET is_favorite = EXCLUDED.is_favorite,
           last_event_id = EXCLUDED.last_event_id
         WHERE identity_favorites.last_event_id <= EXCLUDED.last_event_id`,
        [ch.userId, ch.target, ch.name, ch.on, eventId],
      );
      return;
  }
}

async function insertGroupUsers(c: PoolClient, groupId: number, users: number[]): Promise<void> {
  if (users.length === 0) return;
  await c.query(
    `INSERT INTO identity_group_users (group_id, user_id) SELECT $1, u FROM unnest($2::bigint[]) u ON CONFLICT DO NOTHING`,
    [groupId, users],
  );
}
