import type { FlagEvent } from '@flaglens/contract';

/**
 * Pure update logic of the identity projection: each event becomes a list of changes (no I/O).
 * Two interpreters apply them with the same semantics: `IdentityState` (in memory, the executable
 * definition used by the unit tests) and `identity_apply` (SQL, identity-apply.sql, one
 * call per batch inside its transaction).
 *
 * Order independence and idempotency (projection.ts, docs/design.md#determinism):
 * - every aggregate carries the id of the last event applied to it; an event whose id is not greater
 *   is a no-op (a replayed or late older event never regresses state);
 * - memberships are versioned per (project, principal), and a project's `project-deleted` id is kept
 *   as a reset mark: membership/favourite events older than it are ignored;
 * - deletions of users, groups and roles are sticky flags filtered at read time, so a membership event
 *   of another key arriving after a `user-deleted` cannot resurrect the user;
 * - a role named in a membership (`project-group-added` carries only `roleName`) is stored by name and
 *   resolved at read time, so the role's own events may arrive in any order relative to it.
 */

export type PrincipalKind = 'user' | 'group';
/** A role given by id or, in the `project-group-*` events, by name. */
export type RoleRef = { id: number } | { name: string };

export const OWNER_ROLE_ID = 4;
export const ADMIN_ROLE_ID = 1;
export const VIEWER_ROLE_ID = 3;

export type IdentityChange =
  | {
      kind: 'user-upsert';
      id: number;
      name: string | null;
      username: string | null;
      email: string | null;
      /** undefined: keep the current root role. */
      rootRoleId: number | undefined;
    }
  | { kind: 'user-delete'; id: number }
  | { kind: 'role-upsert'; id: number; name: string; type: string; description: string | null }
  | { kind: 'role-delete'; id: number }
  /**
   * `group-created`: no id; a provisional group keyed by its (unique) name (semantics §7.6 G6). `by`: who
   * added its users (the reference's `group_user.created_by`: the event's author).
   */
  | { kind: 'group-provisional'; name: string; users: number[]; details: GroupDetails; by: string }
  /**
   * An event carrying the group id (and maybe its name): binds a provisional group of that name. Users
   * already in the group keep when and by whom they were added; new ones are added at the event by `by`.
   */
  | {
      kind: 'group-upsert';
      id: number;
      name: string | null;
      users: number[] | undefined;
      details: GroupDetails | undefined;
      by: string;
    }
  | { kind: 'group-delete'; id: number; name: string | null }
  | { kind: 'group-user'; groupId: number; userId: number; present: boolean; by: string }
  | { kind: 'project-upsert'; project: string; created: boolean; mode: string | undefined }
  | { kind: 'project-archive'; project: string; archived: boolean }
  | { kind: 'project-delete'; project: string }
  | { kind: 'access-add'; project: string; principal: PrincipalKind; principalId: number; role: RoleRef }
  | {
      kind: 'access-replace';
      project: string;
      principal: PrincipalKind;
      principalId: number;
      roleIds: number[];
    }
  | { kind: 'access-remove-all'; project: string; principal: PrincipalKind; principalId: number }
  | {
      kind: 'access-remove-one';
      project: string;
      principal: PrincipalKind;
      principalId: number;
      role: RoleRef;
    }
  | {
      kind: 'access-change-role';
      project: string;
      principal: PrincipalKind;
      principalId: number;
      roleId: number;
    }
  | { kind: 'favorite'; userId: number; target: 'project' | 'feature'; name: string; on: boolean };

/** The changes of one event, with the event's id and time (the only inputs besides the payload). */
export interface IdentityChangeSet {
  eventId: number;
  at: string;
  changes: IdentityChange[];
}

export type IdentityMapping = { ok: IdentityChangeSet } | { skip: string } | null;

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** An integer id given as a number or a numeric string; null otherwise. */
/** A group's settings as the reference's profile answers them (`groupItemSchema`, Unleash 8.x). */
export interface GroupDetails {
  rootRole: number | null;
  description: string;
  mappingsSSO: string[];
  scimId: string | null;
}

/**
 * The settings of a group-created/-updated `data` (the create input, or the stored group), defaulted as the
 * reference's `Group` does (`description || ''`, `mappingsSSO || []`).
 */
export function groupDetails(d: Record<string, unknown>): GroupDetails {
  return {
    rootRole: asId(d.rootRole),
    description: typeof d.description === 'string' ? d.description : '',
    mappingsSSO: Array.isArray(d.mappingsSSO)
      ? d.mappingsSSO.filter((m): m is string => typeof m === 'string')
      : [],
    scimId: typeof d.scimId === 'string' ? d.scimId : null,
  };
}

/** The reference's `group_user.created_by` of users its SSO sync adds (group-user-added). */
export const SSO_SYNC_USER = 'SSO';

export function asId(v: unknown): number | null {
  if (typeof v === 'number' && Number.isSafeInteger(v)) return v;
  if (typeof v === 'string' && /^-?\d{1,15}$/.test(v)) return Number(v);
  return null;
}

const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);

/** Ids of a list given as numbers, numeric strings, `{id}`, `{userId}` or `{user: {id}}`. */
export function idList(v: unknown): number[] {
  if (!Array.isArray(v)) return [];
  // a Set keeps the first-seen order and finds a repeat in O(1): 125k ids took 5 s with Array#includes
  const out = new Set<number>();
  for (const x of v) {
    const id = isObj(x)
      ? (asId(x.id) ?? asId(x.userId) ?? (isObj(x.user) ? asId(x.user.id) : null))
      : asId(x);
    if (id !== null) out.add(id);
  }
  return [...out];
}

/** A root role given as a number, a numeric string or `{id}`. */
function rootRoleOf(v: unknown): number | undefined {
  if (v === undefined || v === null) return undefined;
  return (isObj(v) ? asId(v.id) : asId(v)) ?? undefined;
}

/** `project-access-added`: `data.roles` is an array (addAccess) or one object (addRoleAccess). */
export function accessGrants(roles: unknown): { roleId: number; userIds: number[]; groupIds: number[] }[] {
  const list = Array.isArray(roles) ? roles : isObj(roles) ? [roles] : [];
  const out: { roleId: number; userIds: number[]; groupIds: number[] }[] = [];
  for (const r of list) {
    if (!isObj(r)) continue;
    const roleId = asId(r.roleId) ?? asId(r.id);
    if (roleId === null) continue;
    out.push({ roleId, userIds: idList(r.userIds ?? r.users), groupIds: idList(r.groupIds ?? r.groups) });
  }
  return out;
}

const IDENTITY_TYPES = new Set([
  'user-created',
  'user-updated',
  'user-deleted',
  'role-created',
  'role-updated',
  'role-deleted',
  'group-created',
  'group-updated',
  'group-deleted',
  'group-user-added',
  'group-user-removed',
  'project-created',
  'project-updated',
  'project-archived',
  'project-revived',
  'project-deleted',
  'project-access-added',
  'project-access-user-roles-updated',
  'project-access-group-roles-updated',
  'project-access-user-roles-deleted',
  'project-access-group-roles-deleted',
  'project-user-added',
  'project-user-removed',
  'project-user-role-changed',
  'project-group-added',
  'project-group-removed',
  'project-group-role-changed',
  'project-favorited',
  'project-unfavorited',
  'feature-favorited',
  'feature-unfavorited',
]);

export function isIdentityEvent(type: string): boolean {
  return IDENTITY_TYPES.has(type);
}

/** The types of the events identity applies (users, roles, groups, memberships, favourites). */
export function identityEventTypes(): readonly string[] {
  return [...IDENTITY_TYPES];
}

/**
 * The changes an event makes to the identity read models; null for an event of another kind, `skip`
 * (with the reason) for an identity event whose payload lacks what is needed.
 */
export function identityChanges(e: FlagEvent): IdentityMapping {
  if (!IDENTITY_TYPES.has(e.type)) return null;
  const data = isObj(e.data) ? e.data : {};
  const pre = isObj(e.preData) ? e.preData : {};
  const ok = (...changes: IdentityChange[]): IdentityMapping => ({
    ok: { eventId: e.id, at: e.createdAt, changes },
  });
  const project = e.project ?? str(data.projectId) ?? str(pre.projectId) ?? str(data.id) ?? str(data.project);

  switch (e.type) {
    case 'user-created':
    case 'user-updated': {
      const id = asId(data.id);
      if (id === null) return { skip: 'no user id in data' };
      return ok({
        kind: 'user-upsert',
        id,
        name: str(data.name),
        username: str(data.username),
        email: str(data.email),
        rootRoleId: rootRoleOf(data.rootRole),
      });
    }
    case 'user-deleted': {
      const id = asId(pre.id) ?? asId(data.id);
      return id === null ? { skip: 'no user id in preData' } : ok({ kind: 'user-delete', id });
    }
    case 'role-created':
    case 'role-updated': {
      const id = asId(data.id);
      const name = str(data.name);
      if (id === null || name === null) return { skip: 'no role id or name in data' };
      return ok({
        kind: 'role-upsert',
        id,
        name,
        type: str(data.type) ?? 'custom',
        description: str(data.description),
      });
    }
    case 'role-deleted': {
      const id = asId(pre.id) ?? asId(data.id);
      return id === null ? { skip: 'no role id in preData' } : ok({ kind: 'role-delete', id });
    }
    case 'group-created': {
      const id = asId(data.id);
      const name = str(data.name);
      // a producer that does send the id: no provisional step needed
      const details = groupDetails(data);
      const by = e.createdBy;
      if (id !== null) return ok({ kind: 'group-upsert', id, name, users: idList(data.users), details, by });
      if (name === null) return { skip: 'group-created without id or name' };
      return ok({ kind: 'group-provisional', name, users: idList(data.users), details, by });
    }
    case 'group-updated': {
      const id = asId(data.id);
      if (id === null) return { skip: 'no group id in data' };
      return ok({
        kind: 'group-upsert',
        id,
        name: str(data.name),
        users: Array.isArray(data.users) ? idList(data.users) : undefined,
        details: groupDetails(data),
        by: e.createdBy,
      });
    }
    case 'group-deleted': {
      const id = asId(pre.id) ?? asId(data.id);
      if (id === null) return { skip: 'no group id in preData' };
      return ok({ kind: 'group-delete', id, name: str(pre.name) ?? str(data.name) });
    }
    case 'group-user-added':
    case 'group-user-removed': {
      const src = e.type === 'group-user-added' ? data : pre;
      const groupId = asId(src.groupId);
      const userId = asId(src.userId);
      if (groupId === null || userId === null) return { skip: 'no groupId/userId' };
      return ok({
        kind: 'group-user',
        groupId,
        userId,
        present: e.type === 'group-user-added',
        by: SSO_SYNC_USER,
      });
    }
  }

  if (e.type === 'feature-favorited' || e.type === 'feature-unfavorited') {
    const name = e.featureName ?? str(data.feature);
    const userId = e.createdByUserId;
    if (name === null || userId === null) return { skip: 'no feature or no createdByUserId' };
    return ok({ kind: 'favorite', userId, target: 'feature', name, on: e.type === 'feature-favorited' });
  }

  if (project === null) return { skip: 'no project' };

  switch (e.type) {
    case 'project-created': {
      const changes: IdentityChange[] = [
        { kind: 'project-upsert', project, created: true, mode: str(data.mode) ?? 'open' },
      ];
      // the creator becomes Owner (reference createDefaultProjectRoles: when the creator id is truthy)
      if (e.createdByUserId)
        changes.push({
          kind: 'access-add',
          project,
          principal: 'user',
          principalId: e.createdByUserId,
          role: { id: OWNER_ROLE_ID },
        });
      return ok(...changes);
    }
    case 'project-updated':
      return ok({ kind: 'project-upsert', project, created: false, mode: str(data.mode) ?? undefined });
    case 'project-archived':
    case 'project-revived':
      return ok({ kind: 'project-archive', project, archived: e.type === 'project-archived' });
    case 'project-deleted':
      return ok({ kind: 'project-delete', project });
    case 'project-favorited':
    case 'project-unfavorited': {
      if (e.createdByUserId === null) return { skip: 'no createdByUserId' };
      return ok({
        kind: 'favorite',
        userId: e.createdByUserId,
        target: 'project',
        name: project,
        on: e.type === 'project-favorited',
      });
    }
    case 'project-access-added': {
      const changes: IdentityChange[] = [];
      for (const g of accessGrants(data.roles)) {
        for (const u of g.userIds)
          changes.push({
            kind: 'access-add',
            project,
            principal: 'user',
            principalId: u,
            role: { id: g.roleId },
          });
        for (const gr of g.groupIds)
          changes.push({
            kind: 'access-add',
            project,
            principal: 'group',
            principalId: gr,
            role: { id: g.roleId },
          });
      }
      return changes.length ? ok(...changes) : { skip: 'no roles in data' };
    }
    case 'project-access-user-roles-updated':
    case 'project-access-group-roles-updated': {
      const principal: PrincipalKind = e.type === 'project-access-user-roles-updated' ? 'user' : 'group';
      const principalId = principal === 'user' ? asId(data.userId) : asId(data.groupId);
      if (principalId === null) return { skip: `no ${principal} id in data` };
      return ok({ kind: 'access-replace', project, principal, principalId, roleIds: idList(data.roles) });
    }
    case 'project-access-user-roles-deleted':
    case 'project-access-group-roles-deleted': {
      // reference bug: removeGroupAccess emits the *user* type with a groupId (semantics §5.3)
      const groupId = asId(pre.groupId);
      const userId = asId(pre.userId);
      if (groupId !== null && e.type === 'project-access-group-roles-deleted')
        return ok({ kind: 'access-remove-all', project, principal: 'group', principalId: groupId });
      if (userId !== null)
        return ok({ kind: 'access-remove-all', project, principal: 'user', principalId: userId });
      if (groupId !== null)
        return ok({ kind: 'access-remove-all', project, principal: 'group', principalId: groupId });
      return { skip: 'no userId/groupId in preData' };
    }
    case 'project-user-added':
    case 'project-user-removed': {
      const src = e.type === 'project-user-added' ? data : pre;
      const userId = asId(src.userId);
      const roleId = asId(src.roleId);
      if (userId === null || roleId === null) return { skip: 'no userId/roleId' };
      return ok({
        kind: e.type === 'project-user-added' ? 'access-add' : 'access-remove-one',
        project,
        principal: 'user',
        principalId: userId,
        role: { id: roleId },
      });
    }
    case 'project-user-role-changed':
    case 'project-group-role-changed': {
      // project-group-role-changed carries the group id in a field named userId (semantics §5.3)
      const principalId = asId(data.userId) ?? asId(data.groupId);
      const roleId = asId(data.roleId);
      if (principalId === null || roleId === null) return { skip: 'no principal/roleId in data' };
      const principal: PrincipalKind = e.type === 'project-user-role-changed' ? 'user' : 'group';
      return ok({ kind: 'access-change-role', project, principal, principalId, roleId });
    }
    case 'project-group-added':
    case 'project-group-removed': {
      const src = e.type === 'project-group-added' ? data : pre;
      const groupId = asId(src.groupId);
      const roleId = asId(src.roleId);
      const roleName = str(src.roleName);
      if (groupId === null || (roleId === null && roleName === null)) return { skip: 'no groupId/role' };
      const role: RoleRef = roleId !== null ? { id: roleId } : { name: roleName as string };
      return ok({
        kind: e.type === 'project-group-added' ? 'access-add' : 'access-remove-one',
        project,
        principal: 'group',
        principalId: groupId,
        role,
      });
    }
  }
  return null;
}

/** The stored form of a role reference: `id:<n>` or `name:<role name>`. */
export function roleRefKey(r: RoleRef): string {
  return 'id' in r ? `id:${r.id}` : `name:${r.name}`;
}
