import {
  ADMIN_ROLE_ID,
  GroupDetails,
  IdentityChange,
  IdentityChangeSet,
  PrincipalKind,
  RoleRef,
  roleRefKey,
  VIEWER_ROLE_ID,
} from '@flaglens/projections/identity/identity.logic';
import {
  DEFAULT_PROJECT,
  SEED_ROLES,
  SEED_USERS,
  SUBSCRIPTION_TYPES,
} from '@flaglens/projections/identity/identity-seed';
import {
  canChangePassword,
  PROFILE_GROUP_DEFAULT_CREATED_BY,
  type Profile,
} from '@flaglens/projections/identity/identity.read-model';

/**
 * The identity read models in memory: a test oracle of the update rules (pure, no I/O).
 * `identity_apply` (SQL, libs/projections/src/identity/identity-apply.sql) implements exactly these rules on the tables of identity.migration.ts;
 * the integration test checks both agree on a generated history. Rows mirror those tables.
 *
 * Rule shared by every aggregate: a change is applied when `eventId >= last_event_id` of the aggregate
 * (re-applying the same event is harmless, an older event is a no-op).
 */
export interface UserRow {
  name: string | null;
  username: string | null;
  email: string | null;
  rootRoleId: number | null;
  isSystem: boolean;
  deleted: boolean;
  v: number;
}
export interface RoleRow {
  name: string;
  type: string;
  description: string | null;
  deleted: boolean;
  v: number;
}
/** When and by whom a user was added to a group (the reference's `group_user.created_at`/`created_by`). */
export interface Joined {
  at: string | null;
  by: string | null;
}
export interface GroupRow {
  name: string | null;
  deleted: boolean;
  members: Map<number, Joined>;
  details: GroupDetails | null;
  v: number;
}
interface PendingGroup {
  users: number[];
  details: GroupDetails;
  by: string;
  at: string;
  v: number;
}
const newGroup = (name: string | null): GroupRow => ({
  name,
  deleted: false,
  members: new Map(),
  details: null,
  v: 0,
});
/** Adds users not yet in the group (those in it keep when and by whom they joined). */
const join = (g: GroupRow, users: readonly number[], at: string | null, by: string | null) => {
  for (const u of users) if (!g.members.has(u)) g.members.set(u, { at, by });
};
export interface ProjectStateRow {
  present: boolean;
  archived: boolean;
  mode: string;
  /** id of the last project-deleted event: membership and favourite events older than it are ignored. */
  resetId: number;
  v: number;
}
export interface MemberRow {
  project: string;
  kind: PrincipalKind;
  principalId: number;
  roleId: number | null;
  roleName: string | null;
  createdAt: string;
}

const mk = (...parts: (string | number)[]) => JSON.stringify(parts);

export class IdentityState {
  users = new Map<number, UserRow>();
  roles = new Map<number, RoleRow>();
  groups = new Map<number, GroupRow>();
  pendingGroups = new Map<string, PendingGroup>();
  projects = new Map<string, ProjectStateRow>();
  /** key: (project, kind, principalId, roleRef) */
  members = new Map<string, MemberRow>();
  /** key: (project, kind, principalId) */
  memberVersions = new Map<string, number>();
  /** key: (userId, target, name) */
  favorites = new Map<string, { on: boolean; v: number }>();

  /** A fresh installation (identity-seed.ts); the `default` project is present and open. */
  static seeded(): IdentityState {
    const s = new IdentityState();
    for (const r of SEED_ROLES)
      s.roles.set(r.id, { name: r.name, type: r.type, description: r.description, deleted: false, v: 0 });
    for (const u of SEED_USERS)
      s.users.set(u.id, {
        name: u.name,
        username: u.username,
        email: u.email,
        rootRoleId: u.rootRoleId,
        isSystem: u.isSystem,
        deleted: false,
        v: 0,
      });
    s.projects.set(DEFAULT_PROJECT, { present: true, archived: false, mode: 'open', resetId: 0, v: 0 });
    return s;
  }

  apply(set: IdentityChangeSet): void {
    for (const c of set.changes) this.applyOne(c, set.eventId, set.at);
  }

  private project(p: string): ProjectStateRow {
    let row = this.projects.get(p);
    if (!row) {
      row = { present: false, archived: false, mode: 'open', resetId: 0, v: 0 };
      this.projects.set(p, row);
    }
    return row;
  }

  private accessAllowed(project: string, kind: PrincipalKind, id: number, eventId: number): boolean {
    const reset = this.projects.get(project)?.resetId ?? 0;
    const v = this.memberVersions.get(mk(project, kind, id)) ?? 0;
    if (eventId <= reset || eventId < v) return false;
    this.memberVersions.set(mk(project, kind, id), eventId);
    return true;
  }

  private rowsOf(project: string, kind: PrincipalKind, id: number): [string, MemberRow][] {
    return [...this.members].filter(
      ([, m]) => m.project === project && m.kind === kind && m.principalId === id,
    );
  }

  private roleIdByName(name: string): number | null {
    let min: number | null = null;
    for (const [id, r] of this.roles)
      if (r.name === name && !r.deleted && (min === null || id < min)) min = id;
    return min;
  }

  private addMember(project: string, kind: PrincipalKind, id: number, role: RoleRef, at: string): void {
    const key = mk(project, kind, id, roleRefKey(role));
    if (this.members.has(key)) return; // upsert keeps the first created_at
    this.members.set(key, {
      project,
      kind,
      principalId: id,
      roleId: 'id' in role ? role.id : null,
      roleName: 'name' in role ? role.name : null,
      createdAt: at,
    });
  }

  private applyOne(c: IdentityChange, eventId: number, at: string): void {
    switch (c.kind) {
      case 'user-upsert': {
        const u = this.users.get(c.id);
        if (u && eventId < u.v) return;
        this.users.set(c.id, {
          name: c.name,
          username: c.username,
          email: c.email,
          rootRoleId: c.rootRoleId !== undefined ? c.rootRoleId : (u?.rootRoleId ?? null),
          isSystem: u?.isSystem ?? false,
          deleted: u?.deleted ?? false,
          v: eventId,
        });
        return;
      }
      case 'user-delete': {
        const u = this.users.get(c.id);
        if (u) u.deleted = true;
        else
          this.users.set(c.id, {
            name: null,
            username: null,
            email: null,
            rootRoleId: null,
            isSystem: false,
            deleted: true,
            v: 0,
          });
        return;
      }
      case 'role-upsert': {
        const r = this.roles.get(c.id);
        if (r && eventId < r.v) return;
        this.roles.set(c.id, {
          name: c.name,
          type: c.type,
          description: c.description,
          deleted: r?.deleted ?? false,
          v: eventId,
        });
        return;
      }
      case 'role-delete': {
        const r = this.roles.get(c.id);
        if (r) r.deleted = true;
        else this.roles.set(c.id, { name: '', type: 'custom', description: null, deleted: true, v: 0 });
        return;
      }
      case 'group-provisional': {
        // a live group of that name, or a deleted one whose history is newer: this creation is already bound
        for (const g of this.groups.values()) if (g.name === c.name && (!g.deleted || g.v >= eventId)) return;
        const p = this.pendingGroups.get(c.name);
        if (p && eventId < p.v) return;
        this.pendingGroups.set(c.name, { users: [...c.users], details: c.details, by: c.by, at, v: eventId });
        return;
      }
      case 'group-upsert': {
        const g = this.groups.get(c.id) ?? newGroup(null);
        if (eventId < g.v) return;
        const found = c.name !== null ? this.pendingGroups.get(c.name) : undefined;
        const pending = found && found.v <= eventId ? found : undefined;
        if (pending) this.pendingGroups.delete(c.name as string);
        if (c.name !== null) g.name = c.name;
        g.details = c.details ?? pending?.details ?? g.details;
        if (pending) join(g, pending.users, pending.at, pending.by);
        if (c.users !== undefined) {
          const keep = new Set(c.users);
          for (const u of [...g.members.keys()]) if (!keep.has(u)) g.members.delete(u);
          join(g, c.users, at, c.by);
        }
        g.v = eventId;
        this.groups.set(c.id, g);
        return;
      }
      case 'group-delete': {
        const g = this.groups.get(c.id) ?? newGroup(c.name);
        g.deleted = true;
        g.v = Math.max(g.v, eventId);
        if (g.name === null) g.name = c.name;
        if (c.name !== null) {
          const pending = this.pendingGroups.get(c.name);
          if (pending && pending.v <= eventId) this.pendingGroups.delete(c.name);
        }
        this.groups.set(c.id, g);
        return;
      }
      case 'group-user': {
        let g = this.groups.get(c.groupId);
        if (!g) {
          g = newGroup(null);
          // an unknown group id: bind it to the only provisional group, if there is exactly one
          const older = [...this.pendingGroups].filter(([, p]) => p.v <= eventId);
          if (this.pendingGroups.size === 1 && older.length === 1) {
            const [name, p] = older[0];
            g.name = name;
            g.details = p.details;
            join(g, p.users, p.at, p.by);
            this.pendingGroups.delete(name);
          }
          this.groups.set(c.groupId, g);
        }
        if (eventId < g.v) return;
        if (c.present) join(g, [c.userId], at, c.by);
        else g.members.delete(c.userId);
        g.v = eventId;
        return;
      }
      case 'project-upsert': {
        const p = this.project(c.project);
        if (eventId < p.v) return;
        p.present = true;
        if (c.created) p.archived = false;
        if (c.mode !== undefined) p.mode = c.mode;
        p.v = eventId;
        return;
      }
      case 'project-archive': {
        const p = this.project(c.project);
        if (eventId < p.v) return;
        p.present = true;
        p.archived = c.archived;
        p.v = eventId;
        return;
      }
      case 'project-delete': {
        const p = this.project(c.project);
        if (eventId < p.v) return;
        p.present = false;
        p.archived = false;
        // the mode stays: a deleted private project's history stays hidden from non-members
        p.resetId = eventId;
        p.v = eventId;
        for (const [k, m] of this.members) if (m.project === c.project) this.members.delete(k);
        for (const [k, f] of this.favorites) {
          const [, target, name] = JSON.parse(k) as [number, string, string];
          if (target === 'project' && name === c.project && f.v <= eventId) this.favorites.delete(k);
        }
        return;
      }
      case 'access-add':
        if (!this.accessAllowed(c.project, c.principal, c.principalId, eventId)) return;
        this.addMember(c.project, c.principal, c.principalId, c.role, at);
        return;
      case 'access-replace':
        if (!this.accessAllowed(c.project, c.principal, c.principalId, eventId)) return;
        for (const [k] of this.rowsOf(c.project, c.principal, c.principalId)) this.members.delete(k);
        for (const id of c.roleIds) this.addMember(c.project, c.principal, c.principalId, { id }, at);
        return;
      case 'access-remove-all':
        if (!this.accessAllowed(c.project, c.principal, c.principalId, eventId)) return;
        for (const [k] of this.rowsOf(c.project, c.principal, c.principalId)) this.members.delete(k);
        return;
      case 'access-remove-one': {
        if (!this.accessAllowed(c.project, c.principal, c.principalId, eventId)) return;
        // a role by name also matches a row stored by the id of the role that has that name, and back
        const id = 'id' in c.role ? c.role.id : this.roleIdByName(c.role.name);
        const name = 'name' in c.role ? c.role.name : (this.roles.get(c.role.id)?.name ?? null);
        for (const [k, m] of this.rowsOf(c.project, c.principal, c.principalId))
          if ((id !== null && m.roleId === id) || (name !== null && m.roleName === name))
            this.members.delete(k);
        return;
      }
      case 'access-change-role': {
        if (!this.accessAllowed(c.project, c.principal, c.principalId, eventId)) return;
        const rows = this.rowsOf(c.project, c.principal, c.principalId);
        if (rows.length === 0) return;
        const createdAt = rows.map(([, m]) => m.createdAt).sort()[0];
        for (const [k] of rows) this.members.delete(k);
        this.addMember(c.project, c.principal, c.principalId, { id: c.roleId }, createdAt);
        return;
      }
      case 'favorite': {
        if (c.target === 'project' && eventId <= (this.projects.get(c.name)?.resetId ?? 0)) return;
        const key = mk(c.userId, c.target, c.name);
        const f = this.favorites.get(key);
        if (f && eventId < f.v) return;
        this.favorites.set(key, { on: c.on, v: eventId });
        return;
      }
    }
  }

  // ---- reads (the same rules as identity.read-model.ts) ----

  private liveUser(id: number): boolean {
    return this.users.get(id)?.deleted !== true;
  }

  private liveGroup(id: number): boolean {
    return this.groups.get(id)?.deleted !== true;
  }

  /** The role a membership row points at (by id, or by name), if known. */
  private roleOf(m: MemberRow): RoleRow | undefined {
    if (m.roleId !== null) return this.roles.get(m.roleId);
    const id = m.roleName === null ? null : this.roleIdByName(m.roleName);
    return id === null ? undefined : this.roles.get(id);
  }

  private projectListed(p: string): boolean {
    const s = this.projects.get(p);
    if (!s) return true; // not seen yet: the reference's LEFT JOIN keeps it
    return !s.archived && (s.present || s.resetId === 0);
  }

  private groupsOfUser(userId: number): number[] {
    const out: number[] = [];
    for (const [id, g] of this.groups) if (!g.deleted && g.members.has(userId)) out.push(id);
    return out;
  }

  rootRoleOf(userId: number): Profile['rootRole'] {
    const u = this.users.get(userId);
    const r = u?.rootRoleId != null ? this.roles.get(u.rootRoleId) : undefined;
    if (u && r && u.rootRoleId != null && (r.type === 'root' || r.type === 'root-custom'))
      return { id: u.rootRoleId, name: r.name, type: r.type, description: r.description };
    const v = this.roles.get(VIEWER_ROLE_ID) as RoleRow;
    return { id: VIEWER_ROLE_ID, name: v.name, type: v.type, description: v.description };
  }

  profileOf(userId: number): Profile {
    const projects = new Set<string>();
    const u = this.users.get(userId);
    if (u && u.rootRoleId !== null) projects.add(DEFAULT_PROJECT); // the root-role row lives in `default`
    const groups = this.groupsOfUser(userId);
    for (const m of this.members.values()) {
      if (m.kind === 'user' && m.principalId === userId) projects.add(m.project);
      if (m.kind === 'group' && groups.includes(m.principalId)) projects.add(m.project);
    }
    return {
      projects: [...projects].filter((p) => this.projectListed(p)).sort(),
      groups: groups
        .sort((a, b) => a - b)
        .map((id) => {
          const g = this.groups.get(id) as GroupRow;
          const j = g.members.get(userId) as Joined;
          const d = g.details ?? { rootRole: null, description: '', mappingsSSO: [], scimId: null };
          return {
            id,
            name: g.name ?? '',
            rootRole: d.rootRole,
            description: d.description,
            mappingsSSO: d.mappingsSSO,
            createdBy: j.by ?? PROFILE_GROUP_DEFAULT_CREATED_BY,
            createdAt: j.at,
            scimId: d.scimId,
          };
        }),
      rootRole: this.rootRoleOf(userId),
      subscriptions: [...SUBSCRIPTION_TYPES],
      features: [],
      canChangePassword: canChangePassword(userId),
    };
  }

  /** Semantics §3.5: distinct users with a non-root role in P, directly or through a group; +1 for empty groups. */
  countProjectMembers(project: string): number {
    const users = new Set<number>();
    let emptyGroup = false;
    for (const m of this.members.values()) {
      if (m.project !== project) continue;
      if (m.kind === 'user') {
        if (this.liveUser(m.principalId) && this.roleOf(m)?.type !== 'root') users.add(m.principalId);
      } else if (this.liveGroup(m.principalId)) {
        const live = [...(this.groups.get(m.principalId)?.members.keys() ?? [])].filter((u) =>
          this.liveUser(u),
        );
        if (live.length === 0) emptyGroup = true;
        for (const u of live) users.add(u);
      }
    }
    return users.size + (emptyGroup ? 1 : 0);
  }

  canSeeProject(userId: number, project: string): boolean {
    const s = this.projects.get(project);
    if (!s || s.mode !== 'private') return true;
    if (!this.liveUser(userId)) return false;
    if (this.rootRoleOf(userId).id === ADMIN_ROLE_ID) return true;
    const groups = this.groupsOfUser(userId);
    for (const m of this.members.values())
      if (
        m.project === project &&
        ((m.kind === 'user' && m.principalId === userId) ||
          (m.kind === 'group' && groups.includes(m.principalId)))
      )
        return true;
    return false;
  }

  isFavoriteProject(userId: number, project: string): boolean {
    return this.favorites.get(mk(userId, 'project', project))?.on === true;
  }

  isFavoriteFeature(userId: number, feature: string): boolean {
    return this.favorites.get(mk(userId, 'feature', feature))?.on === true;
  }

  /** A canonical, comparable snapshot (for replay and interleaving tests). */
  snapshot(): unknown {
    const sorted = <T>(m: Map<string | number, T>, f: (v: T) => unknown = (v) => v) =>
      [...m].map(([k, v]) => [k, f(v)]).sort((a, b) => (String(a[0]) < String(b[0]) ? -1 : 1));
    return {
      users: sorted(this.users, (u) => ({ ...u, v: undefined })),
      roles: sorted(this.roles, (r) => ({ ...r, v: undefined })),
      groups: sorted(this.groups, (g) => ({
        ...g,
        members: [...g.members].sort((a, b) => a[0] - b[0]),
        v: undefined,
      })),
      pending: sorted(this.pendingGroups, (p) => ({ ...p, v: undefined })),
      projects: sorted(this.projects, (p) => ({ ...p, v: undefined })),
      members: sorted(this.members),
      favorites: [...this.favorites]
        .filter(([, f]) => f.on)
        .map(([k]) => k)
        .sort(),
    };
  }
}
