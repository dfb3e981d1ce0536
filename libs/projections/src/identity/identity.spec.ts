import type { FlagEvent } from '@flaglens/contract';
import { accessGrants, groupDetails, identityChanges, IdentityChangeSet, idList } from './identity.logic';
import { IdentityState } from '@flaglens/testing/identity-state';
import { generateIdentityHistory, interleave } from '@flaglens/testing/identity-history';

let nextId = 1;
function ev(type: string, f: Partial<FlagEvent> = {}): FlagEvent {
  const id = f.id ?? nextId++;
  return {
    id,
    createdAt: f.createdAt ?? new Date(Date.UTC(2026, 0, 1) + id * 1000).toISOString(),
    type,
    createdBy: f.createdBy ?? 'admin',
    createdByUserId: f.createdByUserId === undefined ? 1 : f.createdByUserId,
    environment: null,
    project: f.project ?? null,
    featureName: f.featureName ?? null,
    data: f.data ?? null,
    preData: f.preData ?? null,
    tags: [],
  };
}

function changes(e: FlagEvent): IdentityChangeSet['changes'] {
  const m = identityChanges(e);
  if (!m || !('ok' in m)) throw new Error(`not mapped: ${JSON.stringify(m)}`);
  return m.ok.changes;
}

const NO_DETAILS = { rootRole: null, description: '', mappingsSSO: [], scimId: null };

function run(events: FlagEvent[], state = IdentityState.seeded()): IdentityState {
  for (const e of events) {
    const m = identityChanges(e);
    if (m && 'ok' in m) state.apply(m.ok);
  }
  return state;
}

describe('identityChanges: each event kind (pure)', () => {
  it('ignores events of other kinds', () => {
    expect(identityChanges(ev('feature-created', { featureName: 'f' }))).toBeNull();
    expect(identityChanges(ev('pat-created'))).toBeNull();
  });

  it('user-created / -updated / -deleted', () => {
    expect(changes(ev('user-created', { data: { id: 2, name: 'A', email: 'a@x', rootRole: 2 } }))).toEqual([
      { kind: 'user-upsert', id: 2, name: 'A', username: null, email: 'a@x', rootRoleId: 2 },
    ]);
    // rootRole may also come as an object; an update without it keeps the current one
    expect(
      changes(ev('user-updated', { data: { id: 2, username: 'a', rootRole: { id: 3 } } }))[0],
    ).toMatchObject({
      rootRoleId: 3,
      username: 'a',
    });
    expect(changes(ev('user-updated', { data: { id: 2, name: 'A' } }))[0]).toMatchObject({
      rootRoleId: undefined,
    });
    expect(changes(ev('user-deleted', { preData: { id: 5 } }))).toEqual([{ kind: 'user-delete', id: 5 }]);
    expect(identityChanges(ev('user-deleted'))).toEqual({ skip: 'no user id in preData' });
  });

  it('role-* (custom roles; predefined ones are seeded)', () => {
    expect(
      changes(ev('role-created', { data: { id: 6, name: 'R', description: 'd', type: 'custom' } })),
    ).toEqual([{ kind: 'role-upsert', id: 6, name: 'R', type: 'custom', description: 'd' }]);
    expect(changes(ev('role-deleted', { preData: { id: 6, name: 'R' } }))).toEqual([
      { kind: 'role-delete', id: 6 },
    ]);
  });

  it('group-created has no id: a provisional group by name; later events carry the id', () => {
    expect(
      changes(ev('group-created', { data: { name: 'ops', users: [2, { userId: 3 }, { user: { id: 4 } }] } })),
    ).toEqual([
      { kind: 'group-provisional', name: 'ops', users: [2, 3, 4], details: NO_DETAILS, by: 'admin' },
    ]);
    expect(changes(ev('group-updated', { data: { id: 7, name: 'ops', users: [2] } }))).toEqual([
      { kind: 'group-upsert', id: 7, name: 'ops', users: [2], details: NO_DETAILS, by: 'admin' },
    ]);
    expect(changes(ev('group-deleted', { preData: { id: 7, name: 'ops' } }))).toEqual([
      { kind: 'group-delete', id: 7, name: 'ops' },
    ]);
    expect(changes(ev('group-user-added', { data: { groupId: 7, userId: 9 } }))).toEqual([
      { kind: 'group-user', groupId: 7, userId: 9, present: true, by: 'SSO' },
    ]);
    expect(changes(ev('group-user-removed', { preData: { groupId: 7, userId: 9 } }))).toEqual([
      { kind: 'group-user', groupId: 7, userId: 9, present: false, by: 'SSO' },
    ]);
  });

  it("a group's settings, as the reference's Group defaults them (Unleash 8.x profile groups)", () => {
    const data = {
      id: 7,
      name: 'ops',
      rootRole: 2,
      description: 'Ops',
      mappingsSSO: ['sso-ops', 5],
      scimId: 'scim-1',
      users: [2],
    };
    expect(changes(ev('group-updated', { data }))[0]).toMatchObject({
      details: { rootRole: 2, description: 'Ops', mappingsSSO: ['sso-ops'], scimId: 'scim-1' },
    });
    expect(groupDetails({ description: null, mappingsSSO: 'x', rootRole: 'admin' })).toEqual(NO_DETAILS);
  });

  it('project-created makes the creator Owner (when the creator id is truthy); mode defaults to open', () => {
    expect(changes(ev('project-created', { project: 'p', createdByUserId: 2, data: { id: 'p' } }))).toEqual([
      { kind: 'project-upsert', project: 'p', created: true, mode: 'open' },
      { kind: 'access-add', project: 'p', principal: 'user', principalId: 2, role: { id: 4 } },
    ]);
    expect(
      changes(ev('project-created', { project: 'p', createdByUserId: null, data: { mode: 'private' } })),
    ).toEqual([{ kind: 'project-upsert', project: 'p', created: true, mode: 'private' }]);
    expect(changes(ev('project-created', { project: 'p', createdByUserId: -42 }))[1]).toMatchObject({
      principalId: -42,
    });
  });

  it('project lifecycle events', () => {
    expect(changes(ev('project-updated', { project: 'p', data: { mode: 'private' } }))).toEqual([
      { kind: 'project-upsert', project: 'p', created: false, mode: 'private' },
    ]);
    expect(changes(ev('project-archived', { project: 'p' }))).toEqual([
      { kind: 'project-archive', project: 'p', archived: true },
    ]);
    expect(changes(ev('project-revived', { project: 'p' }))).toEqual([
      { kind: 'project-archive', project: 'p', archived: false },
    ]);
    expect(changes(ev('project-deleted', { project: 'p' }))).toEqual([
      { kind: 'project-delete', project: 'p' },
    ]);
  });

  it('project-access-added: roles as an array (addAccess) and as an object (addRoleAccess)', () => {
    expect(
      accessGrants([
        { roleId: 4, userIds: [2], groupIds: [1] },
        { roleId: 5, userIds: [3], groupIds: [] },
      ]),
    ).toEqual([
      { roleId: 4, userIds: [2], groupIds: [1] },
      { roleId: 5, userIds: [3], groupIds: [] },
    ]);
    expect(
      changes(
        ev('project-access-added', {
          project: 'p',
          data: { roles: { roleId: 5, userIds: [2], groupIds: [1] } },
        }),
      ),
    ).toEqual([
      { kind: 'access-add', project: 'p', principal: 'user', principalId: 2, role: { id: 5 } },
      { kind: 'access-add', project: 'p', principal: 'group', principalId: 1, role: { id: 5 } },
    ]);
  });

  it('role sets replaced, deleted (with the groupId quirk), changed (group id in userId)', () => {
    expect(
      changes(ev('project-access-user-roles-updated', { project: 'p', data: { roles: [4, 5], userId: 2 } })),
    ).toEqual([{ kind: 'access-replace', project: 'p', principal: 'user', principalId: 2, roleIds: [4, 5] }]);
    expect(
      changes(ev('project-access-group-roles-updated', { project: 'p', data: { roles: [5], groupId: 1 } })),
    ).toEqual([{ kind: 'access-replace', project: 'p', principal: 'group', principalId: 1, roleIds: [5] }]);
    expect(
      changes(ev('project-access-user-roles-deleted', { project: 'p', preData: { roles: [5], groupId: 1 } })),
    ).toEqual([{ kind: 'access-remove-all', project: 'p', principal: 'group', principalId: 1 }]);
    expect(
      changes(ev('project-access-user-roles-deleted', { project: 'p', preData: { roles: [5], userId: 2 } })),
    ).toEqual([{ kind: 'access-remove-all', project: 'p', principal: 'user', principalId: 2 }]);
    expect(
      changes(ev('project-access-group-roles-deleted', { project: 'p', preData: { groupId: 1 } })),
    ).toEqual([{ kind: 'access-remove-all', project: 'p', principal: 'group', principalId: 1 }]);
    expect(
      changes(ev('project-user-role-changed', { project: 'p', data: { userId: 2, roleId: 4 } })),
    ).toEqual([{ kind: 'access-change-role', project: 'p', principal: 'user', principalId: 2, roleId: 4 }]);
    expect(
      changes(ev('project-group-role-changed', { project: 'p', data: { userId: 1, roleId: 4 } })),
    ).toEqual([{ kind: 'access-change-role', project: 'p', principal: 'group', principalId: 1, roleId: 4 }]);
  });

  it('single memberships: user by role id, group by role name; project from projectId if absent', () => {
    expect(changes(ev('project-user-added', { project: 'p', data: { userId: 2, roleId: 5 } }))).toEqual([
      { kind: 'access-add', project: 'p', principal: 'user', principalId: 2, role: { id: 5 } },
    ]);
    expect(changes(ev('project-user-removed', { project: 'p', preData: { userId: 2, roleId: 5 } }))).toEqual([
      { kind: 'access-remove-one', project: 'p', principal: 'user', principalId: 2, role: { id: 5 } },
    ]);
    expect(
      changes(ev('project-group-added', { data: { groupId: 1, projectId: 'q', roleName: 'Member' } })),
    ).toEqual([
      { kind: 'access-add', project: 'q', principal: 'group', principalId: 1, role: { name: 'Member' } },
    ]);
    expect(
      changes(ev('project-group-removed', { project: 'q', preData: { groupId: 1, roleName: 'Member' } })),
    ).toEqual([
      {
        kind: 'access-remove-one',
        project: 'q',
        principal: 'group',
        principalId: 1,
        role: { name: 'Member' },
      },
    ]);
  });

  it('favourites are per createdByUserId', () => {
    expect(
      changes(ev('project-favorited', { project: 'p', createdByUserId: 3, data: { project: 'p' } })),
    ).toEqual([{ kind: 'favorite', userId: 3, target: 'project', name: 'p', on: true }]);
    expect(changes(ev('feature-unfavorited', { featureName: 'f', createdByUserId: 3 }))).toEqual([
      { kind: 'favorite', userId: 3, target: 'feature', name: 'f', on: false },
    ]);
    expect(
      identityChanges(ev('feature-favorited', { featureName: 'f', createdByUserId: null })),
    ).toMatchObject({
      skip: expect.any(String),
    });
  });
});

describe('idList', () => {
  it('keeps the first-seen order of distinct ids given in any form', () => {
    expect(idList([3, '1', { id: 3 }, { userId: 2 }, { user: { id: 1 } }, 'x', null, 4])).toEqual([
      3, 1, 2, 4,
    ]);
  });

  it('grows linearly with the list: 10x the ids cost about 10x, not 100x (125k ids blocked the loop 5 s)', () => {
    const ids = (n: number) => Array.from({ length: n }, (_, i) => i);
    const fastest = (n: number) => {
      const list = ids(n);
      let best = Infinity;
      for (let run = 0; run < 5; run++) {
        const t0 = process.hrtime.bigint();
        expect(idList(list)).toHaveLength(n);
        best = Math.min(best, Number(process.hrtime.bigint() - t0));
      }
      return best;
    };
    fastest(20_000); // warm up
    const ratio = fastest(200_000) / fastest(20_000);
    // quadratic is 100x; linear measured 8-47x on a loaded 2-core machine (a collection in the large run)
    expect(ratio).toBeLessThan(65);
  });
});

describe('IdentityState: rules and reads (hand-computed)', () => {
  it('a fresh installation: admin is Admin in default; an unknown user is a Viewer with no projects', () => {
    const s = IdentityState.seeded();
    expect(s.profileOf(1)).toEqual({
      projects: ['default'],
      groups: [],
      rootRole: expect.objectContaining({ id: 1, name: 'Admin', type: 'root' }),
      subscriptions: ['productivity-report'],
      features: [],
      canChangePassword: true,
    });
    expect(s.profileOf(99).rootRole).toMatchObject({ id: 3, name: 'Viewer' });
    expect(s.profileOf(99).projects).toEqual([]);
  });

  it('projects: direct, via groups, archived left out, deleted gone, sorted', () => {
    const s = run([
      ev('user-created', { id: 10, data: { id: 2, name: 'A', rootRole: 3 } }),
      ev('group-created', { id: 11, data: { name: 'ops', users: [2] } }),
      ev('group-updated', { id: 12, data: { id: 1, name: 'ops' } }), // binds; users taken from the creation
      ev('project-created', { id: 13, project: 'zeta', createdByUserId: 2 }),
      ev('project-created', { id: 14, project: 'alpha', createdByUserId: 1 }),
      ev('project-group-added', { id: 15, project: 'alpha', data: { groupId: 1, roleName: 'Member' } }),
      ev('project-created', { id: 16, project: 'arch', createdByUserId: 2 }),
      ev('project-archived', { id: 17, project: 'arch' }),
      ev('project-created', { id: 18, project: 'gone', createdByUserId: 2 }),
      ev('project-deleted', { id: 19, project: 'gone' }),
    ]);
    expect(s.profileOf(2).projects).toEqual(['alpha', 'default', 'zeta']);
    expect(s.profileOf(2).rootRole.name).toBe('Viewer');
    expect(s.countProjectMembers('alpha')).toBe(2); // admin (Owner) + user 2 through ops
    expect(s.countProjectMembers('gone')).toBe(0);
  });

  it('a membership before user-created and before project-created still counts', () => {
    const s = run([
      ev('project-access-added', {
        id: 20,
        project: 'p',
        data: { roles: [{ roleId: 5, userIds: [7], groupIds: [] }] },
      }),
      ev('user-created', { id: 21, data: { id: 7, rootRole: 2 } }),
      ev('project-created', { id: 22, project: 'p', createdByUserId: 7 }),
    ]);
    expect(s.profileOf(7).projects).toEqual(['default', 'p']);
    expect(s.countProjectMembers('p')).toBe(1);
  });

  it('countProjectMembers follows §3.5: distinct users, groups expanded, deleted users out, empty group +1', () => {
    const s = run([
      ev('user-created', { id: 30, data: { id: 2, rootRole: 3 } }),
      ev('user-created', { id: 31, data: { id: 3, rootRole: 3 } }),
      ev('user-created', { id: 32, data: { id: 4, rootRole: 3 } }),
      ev('group-updated', { id: 33, data: { id: 1, name: 'g1', users: [2, 3] } }),
      ev('group-updated', { id: 34, data: { id: 2, name: 'empty', users: [] } }),
      ev('project-created', { id: 35, project: 'p', createdByUserId: 2 }),
      ev('project-access-added', {
        id: 36,
        project: 'p',
        data: { roles: [{ roleId: 5, userIds: [3, 4], groupIds: [1, 2] }] },
      }),
      ev('user-deleted', { id: 37, preData: { id: 4 } }),
    ]);
    // users 2 (Owner, and g1), 3 (direct and g1); 4 deleted; the empty group adds 1
    expect(s.countProjectMembers('p')).toBe(3);
    // the deleted user's memberships are gone from the profile's point of view too
    expect(s.canSeeProject(4, 'p')).toBe(true); // open project
  });

  it('role changes: replace, change-role (keeps created time), remove one, remove all', () => {
    const s = run([
      ev('project-created', { id: 40, project: 'p', createdByUserId: null }),
      ev('project-access-added', {
        id: 41,
        project: 'p',
        data: { roles: { roleId: 5, userIds: [2], groupIds: [] } },
      }),
      ev('project-access-user-roles-updated', { id: 42, project: 'p', data: { roles: [4, 5], userId: 3 } }),
      ev('project-user-role-changed', { id: 43, project: 'p', data: { userId: 3, roleId: 5 } }),
      ev('project-user-removed', { id: 44, project: 'p', preData: { userId: 2, roleId: 5 } }),
    ]);
    const rows = [...s.members.values()].map((m) => [m.principalId, m.roleId, m.createdAt]);
    expect(rows).toEqual([[3, 5, new Date(Date.UTC(2026, 0, 1) + 42000).toISOString()]]);
    run([ev('project-access-user-roles-deleted', { id: 45, project: 'p', preData: { userId: 3 } })], s);
    expect(s.countProjectMembers('p')).toBe(0);
  });

  it('canSeeProject: open for all; private for admins and members (direct or via group)', () => {
    const s = run([
      ev('user-created', { id: 50, data: { id: 2, rootRole: 2 } }),
      ev('user-created', { id: 51, data: { id: 3, rootRole: 3 } }),
      ev('user-created', { id: 52, data: { id: 4, rootRole: 1 } }),
      ev('user-created', { id: 53, data: { id: 5, rootRole: 3 } }),
      ev('group-updated', { id: 54, data: { id: 1, name: 'g', users: [5] } }),
      ev('project-created', { id: 55, project: 'secret', createdByUserId: 2, data: { mode: 'private' } }),
      ev('project-group-added', { id: 56, project: 'secret', data: { groupId: 1, roleName: 'Member' } }),
      ev('project-created', { id: 57, project: 'open', createdByUserId: 2 }),
    ]);
    expect([1, 2, 3, 4, 5].map((u) => s.canSeeProject(u, 'secret'))).toEqual([true, true, false, true, true]);
    expect(s.canSeeProject(3, 'open')).toBe(true);
    run([ev('project-updated', { id: 58, project: 'secret', data: { mode: 'open' } })], s);
    expect(s.canSeeProject(3, 'secret')).toBe(true);
  });

  it('favourites toggle per user; project-deleted removes them; older events after it do not return', () => {
    const s = run([
      ev('project-favorited', { id: 60, project: 'p', createdByUserId: 2 }),
      ev('project-favorited', { id: 61, project: 'p', createdByUserId: 3 }),
      ev('project-unfavorited', { id: 62, project: 'p', createdByUserId: 3 }),
      ev('feature-favorited', { id: 63, featureName: 'f', createdByUserId: 3 }),
    ]);
    expect([s.isFavoriteProject(2, 'p'), s.isFavoriteProject(3, 'p'), s.isFavoriteFeature(3, 'f')]).toEqual([
      true,
      false,
      true,
    ]);
    run([ev('project-deleted', { id: 64, project: 'p' })], s);
    run([ev('project-favorited', { id: 60, project: 'p', createdByUserId: 2 })], s); // replayed
    expect(s.isFavoriteProject(2, 'p')).toBe(false);
  });

  it('a deleted user and a deleted group leave the reads; a role by name resolves at read time', () => {
    const s = run([
      ev('project-group-added', { id: 70, project: 'p', data: { groupId: 3, roleName: 'Release manager' } }),
      ev('group-updated', { id: 71, data: { id: 3, name: 'g3', users: [8] } }),
      ev('role-created', { id: 72, data: { id: 6, name: 'Release manager', type: 'custom' } }),
    ]);
    expect(s.profileOf(8).projects).toEqual(['p']); // no user-created: no root-role row in default
    expect(s.countProjectMembers('p')).toBe(1);
    run([ev('group-deleted', { id: 73, preData: { id: 3, name: 'g3' } })], s);
    expect(s.profileOf(8).projects).toEqual([]);
    expect(s.countProjectMembers('p')).toBe(0);
  });

  it('a group-user event for an unknown id binds the only provisional group', () => {
    const s = run([
      ev('group-created', { id: 80, data: { name: 'solo', users: [2] } }),
      ev('group-user-added', { id: 81, data: { groupId: 9, userId: 3 } }),
    ]);
    expect(s.groups.get(9)).toMatchObject({ name: 'solo' });
    expect([...s.groups.get(9)!.members.keys()]).toEqual([2, 3]);
    expect(s.pendingGroups.size).toBe(0);
  });

  it("profile groups: the user's live groups by id, with when and by whom the user was added", () => {
    const at = (id: number) => new Date(Date.UTC(2026, 0, 1) + id * 1000).toISOString();
    const s = run([
      ev('group-created', {
        id: 90,
        createdBy: 'alice@x',
        data: { name: 'ops', users: [2, 3], rootRole: 2 },
      }),
      ev('group-updated', {
        id: 91,
        createdBy: 'bob@x',
        data: { id: 5, name: 'ops', description: 'Ops', mappingsSSO: ['o'], rootRole: 2, users: [2, 4] },
      }),
      ev('group-created', { id: 92, data: { id: 3, name: 'dev', users: [] } }),
      ev('group-user-added', { id: 93, data: { groupId: 3, userId: 2 } }),
      ev('group-created', { id: 94, data: { id: 8, name: 'gone', users: [2] } }),
      ev('group-deleted', { id: 95, preData: { id: 8, name: 'gone' } }),
    ]);
    expect(s.profileOf(2).groups).toEqual([
      {
        id: 3,
        name: 'dev',
        rootRole: null,
        description: '',
        mappingsSSO: [],
        createdBy: 'SSO',
        createdAt: at(93),
        scimId: null,
      },
      // kept from the creation (the update adds only new users), settings from the update
      {
        id: 5,
        name: 'ops',
        rootRole: 2,
        description: 'Ops',
        mappingsSSO: ['o'],
        createdBy: 'alice@x',
        createdAt: at(90),
        scimId: null,
      },
    ]);
    expect(s.profileOf(4).groups).toEqual([
      expect.objectContaining({ id: 5, createdBy: 'bob@x', createdAt: at(91) }),
    ]);
    expect(s.profileOf(3).groups).toEqual([]); // removed by the update
  });
});

describe('IdentityState: replay and interleaving on generated histories', () => {
  const seeds = [1, 2, 3, 4, 5, 6, 7, 8];

  it.each(seeds)('seed %i: the same events twice give the same state', (seed) => {
    const history = generateIdentityHistory(seed);
    const once = run(history);
    const twice = run(history, run(history));
    expect(twice.snapshot()).toEqual(once.snapshot());
  });

  it.each(seeds)('seed %i: another interleaving of keys gives the same state and the same reads', (seed) => {
    const history = generateIdentityHistory(seed);
    const base = run(history);
    for (let k = 0; k < 5; k++) {
      const other = run(interleave(history, seed * 100 + k));
      expect(other.snapshot()).toEqual(base.snapshot());
      for (let u = 1; u <= 14; u++) expect(other.profileOf(u)).toEqual(base.profileOf(u));
      for (const p of ['p1', 'p2', 'p3', 'p4'])
        expect(other.countProjectMembers(p)).toBe(base.countProjectMembers(p));
    }
  });

  it('the generated histories exercise every kind of change', () => {
    const kinds = new Set<string>();
    for (const seed of seeds)
      for (const e of generateIdentityHistory(seed)) {
        const m = identityChanges(e);
        if (m && 'ok' in m) for (const c of m.ok.changes) kinds.add(c.kind);
      }
    expect([...kinds].sort()).toEqual(
      [
        'access-add',
        'access-change-role',
        'access-remove-all',
        'access-remove-one',
        'access-replace',
        'favorite',
        'group-delete',
        'group-provisional',
        'group-upsert',
        'group-user',
        'project-archive',
        'project-delete',
        'project-upsert',
        'role-upsert',
        'user-delete',
        'user-upsert',
      ].sort(),
    );
  });
});
