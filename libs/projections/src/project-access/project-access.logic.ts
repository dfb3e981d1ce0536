/*
 * TO BE REPLACED BY THE IDENTITY READ MODEL AT MERGE.
 * A minimal stand-in for project memberships and favourites, so the overview's `members`,
 * `stats.projectMembersAddedCurrentWindow` and `favorite` have values before the identity branch lands.
 * It covers direct user memberships only (no groups, no root roles, no user-deleted cascade).
 */
import type { FlagEvent } from '@flaglens/contract';
import { data, int, preData, type Skip } from '../shared';

/** The reference's predefined Owner role id (semantics §5.2: project-created gives the creator Owner). */
export const OWNER_ROLE_ID = 4;

export interface MemberRow {
  project: string;
  userId: number;
  roleId: number;
  createdAt: string;
}
export interface FavoriteRow {
  project: string;
  userId: number;
}

export const PROJECT_ACCESS_TYPES = new Set([
  'project-created',
  'project-deleted',
  'project-user-added',
  'project-user-removed',
  'project-access-added',
  'project-access-user-roles-updated',
  'project-access-user-roles-deleted',
  'project-favorited',
  'project-unfavorited',
]);

interface ProjectAccess {
  members: Map<string, MemberRow>;
  favorites: Set<number>;
}

/**
 * Pure update of direct memberships and favourites from the project's events (key = project: in order).
 * Returns the complete new state of each touched project. Fallbacks: a missing/non-integer user or role id →
 * skipped; favourites with a null createdByUserId (admin token) → skipped (nobody to mark).
 */
export function reduceProjectAccess(
  members: readonly MemberRow[],
  favorites: readonly FavoriteRow[],
  events: readonly FlagEvent[],
): { projects: Map<string, { members: MemberRow[]; favorites: FavoriteRow[] }>; skipped: Skip[] } {
  const state = new Map<string, ProjectAccess>();
  const get = (p: string) => {
    let s = state.get(p);
    if (!s) state.set(p, (s = { members: new Map(), favorites: new Set() }));
    return s;
  };
  for (const m of members) get(m.project).members.set(`${m.userId}:${m.roleId}`, m);
  for (const f of favorites) get(f.project).favorites.add(f.userId);
  const touched = new Set<string>();
  const skipped: Skip[] = [];
  const add = (s: ProjectAccess, p: string, userId: number, roleId: number, at: string, keep: boolean) => {
    const k = `${userId}:${roleId}`;
    if (keep && s.members.has(k)) return;
    s.members.set(k, { project: p, userId, roleId, createdAt: at });
  };
  const removeUser = (s: ProjectAccess, userId: number) => {
    for (const [k, m] of s.members) if (m.userId === userId) s.members.delete(k);
  };
  for (const e of events) {
    if (!PROJECT_ACCESS_TYPES.has(e.type)) continue;
    if (!e.project) {
      skipped.push({ eventId: e.id, reason: `${e.type} without a project` });
      continue;
    }
    const p = e.project;
    const s = get(p);
    touched.add(p);
    const d = data(e);
    const pre = preData(e);
    const bad = (what: string) => skipped.push({ eventId: e.id, reason: `${e.type}: ${what}` });
    switch (e.type) {
      case 'project-created':
      case 'project-deleted':
        s.members.clear();
        s.favorites.clear();
        if (e.type === 'project-created' && e.createdByUserId)
          add(s, p, e.createdByUserId, OWNER_ROLE_ID, e.createdAt, true);
        break;
      case 'project-user-added': {
        const u = int(d.userId);
        const r = int(d.roleId);
        if (u === undefined || r === undefined) bad('no userId/roleId');
        else add(s, p, u, r, e.createdAt, true);
        break;
      }
      case 'project-user-removed': {
        const u = int(pre.userId);
        const r = int(pre.roleId);
        if (u === undefined) bad('no userId');
        else if (r === undefined) removeUser(s, u);
        else s.members.delete(`${u}:${r}`);
        break;
      }
      case 'project-access-added': {
        const roles = Array.isArray(d.roles)
          ? d.roles
          : d.roles && typeof d.roles === 'object'
            ? [d.roles]
            : [];
        if (roles.length === 0) bad('no roles');
        for (const role of roles as Record<string, unknown>[]) {
          const r = int(role?.roleId);
          const users = Array.isArray(role?.userIds) ? role.userIds : [];
          if (r === undefined) continue;
          for (const u of users) if (int(u) !== undefined) add(s, p, int(u)!, r, e.createdAt, true);
        }
        break;
      }
      case 'project-access-user-roles-updated': {
        const u = int(d.userId);
        if (u === undefined || !Array.isArray(d.roles)) {
          bad('no userId/roles');
          break;
        }
        removeUser(s, u);
        for (const r of d.roles) if (int(r) !== undefined) add(s, p, u, int(r)!, e.createdAt, false);
        break;
      }
      case 'project-access-user-roles-deleted': {
        const u = int(pre.userId);
        if (u !== undefined) removeUser(s, u);
        else if (pre.groupId === undefined) bad('no userId');
        break;
      }
      case 'project-favorited':
      case 'project-unfavorited':
        if (e.createdByUserId === null) bad('no createdByUserId');
        else if (e.type === 'project-favorited') s.favorites.add(e.createdByUserId);
        else s.favorites.delete(e.createdByUserId);
        break;
    }
  }
  const projects = new Map<string, { members: MemberRow[]; favorites: FavoriteRow[] }>();
  for (const p of touched) {
    const s = state.get(p)!;
    projects.set(p, {
      members: [...s.members.values()],
      favorites: [...s.favorites].map((userId) => ({ project: p, userId })),
    });
  }
  return { projects, skipped };
}
