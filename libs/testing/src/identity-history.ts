/**
 * A generated, realistic identity history (test code only, not exported by the library's index):
 * users, a custom role, groups (created without id, then bound), projects with memberships in every
 * payload form of semantics §5.3 (array and object roles, role by name, group id in `userId`, the
 * user-type deletion carrying a groupId), archive/revive/delete, favourites. Ids increase in order.
 */
import type { FlagEvent } from '@flaglens/contract';
import { prng } from '@flaglens/testing/generate-history';
import { testKey } from '@flaglens/testing/test-events';

/** Another order of the same events: per-key order kept (as Kafka does), keys interleaved at random. */
export function interleave(events: FlagEvent[], seed: number): FlagEvent[] {
  const rnd = prng(seed);
  const queues = new Map<string, FlagEvent[]>();
  for (const e of events) {
    const k = testKey(e);
    if (!queues.has(k)) queues.set(k, []);
    queues.get(k)!.push(e);
  }
  const out: FlagEvent[] = [];
  const live = [...queues.values()];
  while (live.length) {
    const i = Math.floor(rnd() * live.length);
    out.push(live[i].shift()!);
    if (live[i].length === 0) live.splice(i, 1);
  }
  return out;
}

export function generateIdentityHistory(
  seed: number,
  size = { users: 12, projects: 4, groups: 3 },
): FlagEvent[] {
  const rnd = prng(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)];
  const events: FlagEvent[] = [];
  let id = 1000;
  let t = Date.UTC(2026, 0, 1);
  const ev = (
    type: string,
    fields: { data?: unknown; preData?: unknown; project?: string; featureName?: string; by?: number },
  ): void => {
    id += 1;
    t += 1000 + Math.floor(rnd() * 5000);
    events.push({
      id,
      createdAt: new Date(t).toISOString(),
      type,
      createdBy: 'admin',
      createdByUserId: fields.by ?? 1,
      environment: null,
      project: fields.project ?? null,
      featureName: fields.featureName ?? null,
      data: (fields.data ?? null) as Record<string, unknown> | null,
      preData: (fields.preData ?? null) as Record<string, unknown> | null,
      tags: [],
    });
  };

  const users = Array.from({ length: size.users }, (_, i) => i + 2);
  const user = (u: number, rootRole: number) => ({
    id: u,
    name: `User ${u}`,
    email: `u${u}@example.com`,
    rootRole,
  });
  ev('role-created', {
    data: { id: 6, name: 'Release manager', description: 'ships', type: 'custom', permissions: [] },
  });
  for (const u of users) ev('user-created', { data: user(u, pick([1, 2, 3])) });
  const projects = Array.from({ length: size.projects }, (_, i) => `p${i + 1}`);
  const groups = Array.from({ length: size.groups }, (_, i) => ({ id: i + 1, name: `group-${i + 1}` }));
  for (const g of groups) {
    const members = users.filter(() => rnd() < 0.3);
    ev('group-created', { data: { name: g.name, description: null, users: members } });
    if (rnd() < 0.7) ev('group-updated', { data: { id: g.id, name: g.name, users: members } });
  }
  for (const p of projects) {
    ev('project-created', {
      project: p,
      by: pick(users),
      data: { id: p, name: p, mode: pick(['open', 'private']) },
    });
  }
  for (let i = 0; i < 60; i++) {
    const p = pick(projects);
    const u = pick(users);
    const g = pick(groups);
    const r = rnd();
    if (r < 0.12)
      ev('project-access-added', {
        project: p,
        data: { roles: [{ roleId: pick([4, 5]), userIds: [u, pick(users)], groupIds: [g.id] }] },
      });
    else if (r < 0.2)
      ev('project-access-added', {
        project: p,
        data: { roles: { roleId: pick([5, 6]), userIds: [u], groupIds: [] } },
      });
    else if (r < 0.27)
      ev('project-access-user-roles-updated', {
        project: p,
        data: { roles: [pick([4, 5, 6])], userId: u },
        preData: { roles: [], userId: u },
      });
    else if (r < 0.32)
      ev('project-access-group-roles-updated', {
        project: p,
        data: { roles: [5], groupId: g.id },
        preData: { roles: [], groupId: g.id },
      });
    else if (r < 0.37)
      ev('project-access-user-roles-deleted', { project: p, preData: { roles: [5], userId: u } });
    else if (r < 0.4)
      ev('project-access-user-roles-deleted', { project: p, preData: { roles: [5], groupId: g.id } });
    else if (r < 0.45)
      ev('project-user-role-changed', {
        project: p,
        data: { userId: u, roleId: pick([4, 5]), roleName: 'x', email: null },
        preData: { userId: u, roleId: 5, roleName: 'x', email: null },
      });
    else if (r < 0.52)
      ev('project-group-added', {
        project: p,
        data: { groupId: g.id, projectId: p, roleName: pick(['Member', 'Owner', 'Release manager']) },
      });
    else if (r < 0.56)
      ev('project-group-removed', {
        project: p,
        preData: { groupId: g.id, projectId: p, roleName: 'Member' },
      });
    else if (r < 0.6)
      ev('project-group-role-changed', {
        project: p,
        data: { userId: g.id, roleId: 4, roleName: 'Owner' },
        preData: { userId: g.id, roleId: 5, roleName: 'Member' },
      });
    else if (r < 0.64)
      ev('project-user-removed', {
        project: p,
        preData: { roleId: 5, userId: u, roleName: 'Member', email: null },
      });
    else if (r < 0.7) ev('group-user-added', { data: { groupId: g.id, userId: u }, by: -1337 });
    else if (r < 0.74) ev('group-user-removed', { preData: { groupId: g.id, userId: u }, by: -1337 });
    else if (r < 0.8)
      ev(pick(['project-favorited', 'project-unfavorited']), { project: p, by: u, data: { project: p } });
    else if (r < 0.86) {
      const f = `flag-${Math.floor(rnd() * 4)}`;
      ev(pick(['feature-favorited', 'feature-unfavorited']), { featureName: f, by: u, data: { feature: f } });
    } else if (r < 0.9) ev('user-updated', { data: user(u, pick([1, 2, 3])), preData: user(u, 3) });
    else if (r < 0.93) ev(pick(['project-archived', 'project-revived']), { project: p });
    else if (r < 0.95)
      ev('project-updated', { project: p, data: { id: p, name: p, mode: pick(['open', 'private']) } });
    else ev('group-updated', { data: { id: g.id, name: g.name, users: users.filter(() => rnd() < 0.3) } });
  }
  ev('user-deleted', { preData: user(users[users.length - 1], 2) });
  ev('group-deleted', { preData: { id: groups[0].id, name: groups[0].name, users: [] } });
  ev('project-deleted', { project: projects[projects.length - 1] });
  // memberships and favourites of the deleted project after its deletion must not come back,
  // but a project re-created with the same id starts afresh
  ev('project-created', {
    project: projects[projects.length - 1],
    by: users[0],
    data: { id: projects[projects.length - 1] },
  });
  return events;
}
