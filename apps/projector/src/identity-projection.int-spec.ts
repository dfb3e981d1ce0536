import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { INestApplication } from '@nestjs/common';
import type { Kafka } from 'kafkajs';
import { loadConfig } from '@flaglens/config';
import { eventKey, type FlagEvent } from '@flaglens/contract';
import { Database, searchPathOption } from '@flaglens/persistence';
import { REFERENCE_SAMPLE, referenceSampleEvents } from '@flaglens/testing/reference-sample';
import { createProjectorApp } from './main';
import { createTestDatabase, TestDatabase } from '@flaglens/testing/support/test-database';
import {
  BROKERS,
  createTestTopic,
  produce,
  testGroup,
  testKafka,
} from '@flaglens/testing/support/test-kafka';
import { waitFor } from '@flaglens/testing/support/wait-for';
import { identityChanges } from '@flaglens/projections/identity/identity.logic';
import { IdentityState } from '@flaglens/testing/identity-state';
import { IdentityReadModel } from '@flaglens/projections/identity/identity.read-model';
import { PersonalAccessTokens } from '@flaglens/projections/identity/personal-access-tokens';
import { generateIdentityHistory } from '@flaglens/testing/identity-history';

const captured = (user: string) =>
  JSON.parse(readFileSync(join(REFERENCE_SAMPLE, 'responses', 'profile', `${user}.json`), 'utf8')).body;

/** A fresh database and topic, the projector running in-process; events published keyed as the contract says. */
async function pipeline(label: string) {
  const kafka: Kafka = testKafka();
  const db: TestDatabase = await createTestDatabase(label);
  const { topic, drop } = await createTestTopic(kafka, label);
  const app: INestApplication = await createProjectorApp(
    loadConfig({
      DATABASE_URL: db.url,
      KAFKA_BROKERS: BROKERS,
      KAFKA_TOPIC: topic,
      KAFKA_GROUP_ID: testGroup(`g-${label}`),
      LOG_LEVEL: 'warn',
    }),
  );
  app.useLogger(['error']);
  await app.init();
  // reads resolve in the projection version a fresh database starts with
  const ds: Database = new Database({
    url: db.url,
    max: 2,
    options: searchPathOption('flaglens_v1'),
  });
  const publish = async (events: FlagEvent[]) => {
    await produce(
      kafka,
      topic,
      events.map((e) => ({ key: eventKey(e), value: JSON.stringify(e) })),
    );
    const ids = events.map((e) => e.id);
    await waitFor(
      'events projected',
      async () =>
        Number(
          (await db.query<{ n: string }>('SELECT count(*) AS n FROM event_log WHERE id = ANY($1)', [ids]))[0]
            .n,
        ) === new Set(ids).size,
      { timeoutMs: 90000 },
    );
  };
  return {
    db,
    ds,
    publish,
    close: async () => {
      await app.close();
      await ds.end();
      await drop();
      await db.drop();
    },
  };
}

type Pipeline = Awaited<ReturnType<typeof pipeline>>;

let nextId = 200;
const at = (id: number) => new Date(Date.UTC(2026, 10, 22, 10, 0, 0) + id * 1000).toISOString();
function ev(type: string, f: Partial<FlagEvent>): FlagEvent {
  const id = nextId++;
  return {
    id,
    createdAt: at(id),
    type,
    createdBy: 'admin',
    createdByUserId: f.createdByUserId === undefined ? 1 : f.createdByUserId,
    environment: null,
    project: f.project ?? null,
    featureName: f.featureName ?? null,
    data: f.data ?? null,
    preData: f.preData ?? null,
    tags: [],
  };
}

describe('identity projection through the projector (real Kafka and Postgres)', () => {
  let p: Pipeline;
  let identity: IdentityReadModel;

  beforeAll(async () => {
    p = await pipeline('identity');
    identity = new IdentityReadModel(p.ds);
    await p.publish(referenceSampleEvents());
  });

  afterAll(async () => {
    await p?.close();
  });

  it.each([
    ['admin', 1],
    ['alice', 2],
    ['bob', 3],
    ['carol', 4],
  ])('the profile of %s (id %i) equals the reference capture', async (user, id) => {
    const { groups, canChangePassword, ...v6 } = await identity.profile(id);
    // the 6.10.1 capture: same keys in the same order, same values; plus what 8.x adds (no groups in the sample)
    expect(JSON.stringify(v6)).toBe(JSON.stringify(captured(user)));
    expect({ groups, canChangePassword }).toEqual({ groups: [], canChangePassword: true });
  });

  it('dave (created, updated, deleted) is deleted; his token would not work; favourites are per user', async () => {
    const rows = await p.db.query<{ deleted: boolean; root_role_id: string }>(
      'SELECT deleted, root_role_id FROM identity_users WHERE id = 5',
    );
    expect(rows).toEqual([{ deleted: true, root_role_id: '3' }]);
    const tokens = new PersonalAccessTokens(p.ds);
    const dave = await tokens.create(5, {});
    expect(await tokens.authenticate(dave.secret, new Date())).toBeNull();
    const alice = await tokens.create(2, {});
    expect(await tokens.authenticate(alice.secret, new Date())).toBe(2);
    expect(await identity.isFavoriteProject(1, 'default')).toBe(true);
    expect(await identity.isFavoriteProject(2, 'default')).toBe(false);
    expect(await identity.isFavoriteFeature(1, 'checkout.new-flow')).toBe(true);
  });

  it('several projects: group roles, a removed membership, a deleted user, an archived project', async () => {
    await p.publish([
      ev('project-created', {
        project: 'payments',
        createdByUserId: 2,
        data: { id: 'payments', name: 'Payments' },
      }),
      ev('project-created', {
        project: 'search',
        createdByUserId: 4,
        data: { id: 'search', name: 'Search' },
      }),
      ev('project-created', {
        project: 'vault',
        createdByUserId: 4,
        data: { id: 'vault', name: 'Vault', mode: 'private' },
      }),
      ev('project-created', {
        project: 'legacy',
        createdByUserId: 1,
        data: { id: 'legacy', name: 'Legacy' },
      }),
      ev('group-created', { data: { name: 'platform', users: [3] } }),
      ev('group-updated', { data: { id: 1, name: 'platform', users: [3] } }),
      ev('project-group-added', {
        project: 'search',
        data: { groupId: 1, projectId: 'search', roleName: 'Member' },
      }),
      ev('project-access-added', {
        project: 'payments',
        data: { roles: { roleId: 5, userIds: [3], groupIds: [] } },
      }),
      ev('project-access-user-roles-deleted', { project: 'payments', preData: { roles: [5], userId: 3 } }),
      ev('project-access-added', {
        project: 'legacy',
        data: { roles: [{ roleId: 5, userIds: [2, 3], groupIds: [] }] },
      }),
      ev('project-archived', { project: 'legacy' }),
      ev('user-created', { data: { id: 6, name: 'Erin', email: 'erin@example.com', rootRole: 2 } }),
      ev('project-access-added', {
        project: 'payments',
        data: { roles: [{ roleId: 5, userIds: [6], groupIds: [] }] },
      }),
      ev('user-deleted', { preData: { id: 6, name: 'Erin', email: 'erin@example.com', rootRole: 2 } }),
    ]);
    expect((await identity.profile(1)).projects).toEqual(['default']);
    expect((await identity.profile(2)).projects).toEqual(['default', 'payments']);
    expect((await identity.profile(3)).projects).toEqual(['default', 'search']);
    expect((await identity.profile(4)).projects).toEqual(['default', 'search', 'vault']);
    expect(await identity.countProjectMembers('payments')).toBe(1); // alice; bob removed; erin deleted
    expect(await identity.countProjectMembers('search')).toBe(2); // carol (Owner) + bob through platform
    expect(await identity.countProjectMembers('legacy')).toBe(3);
    // the same counts in one statement, in the order asked (unknown and repeated ids too)
    expect(
      await identity.countMembersOfProjects(['legacy', 'payments', 'no-such', 'search', 'legacy']),
    ).toEqual([3, 1, 0, 2, 3]);
    expect(await identity.countMembersOfProjects([])).toEqual([]);
    expect(await identity.canSeeProject(3, 'vault')).toBe(false);
    expect(await identity.canSeeProject(4, 'vault')).toBe(true);
    expect(await identity.canSeeProject(1, 'vault')).toBe(true); // admin
    expect(await identity.canSeeProject(3, 'search')).toBe(true);
    await p.publish([
      ev('project-revived', { project: 'legacy' }),
      ev('project-deleted', { project: 'payments' }),
    ]);
    expect((await identity.profile(2)).projects).toEqual(['default', 'legacy']);
    expect(await identity.countProjectMembers('payments')).toBe(0);
    // a deleted private project's history stays hidden from non-members (it used to become open)
    expect(await identity.hiddenProjects(3)).toEqual(['vault']);
    await p.publish([ev('project-deleted', { project: 'vault' })]);
    expect(await identity.hiddenProjects(3)).toEqual(['vault']);
    expect(await identity.hiddenProjects(2)).toEqual(['vault']);
    expect(await identity.hiddenProjects(4)).toEqual([]); // carol is an Admin
    expect(await identity.hiddenProjects(1)).toEqual([]); // admin
  });
});

describe('identity SQL agrees with the in-memory rules on a generated history (real Kafka and Postgres)', () => {
  let p: Pipeline;

  beforeAll(async () => {
    p = await pipeline('identity-gen');
  });

  afterAll(async () => {
    await p?.close();
  });

  it.each([11, 12])(
    'seed %i: every read equals IdentityState after the projector interleaved partitions',
    async (seed) => {
      const history = generateIdentityHistory(seed).map((e) => ({ ...e, id: e.id + seed * 1000 }));
      const expected = IdentityState.seeded();
      for (const e of history) {
        const m = identityChanges(e);
        if (m && 'ok' in m) expected.apply(m.ok);
      }
      // the histories share user and project ids: reset the identity tables to the bootstrap rows first
      await p.db.query(
        `TRUNCATE identity_group_users, identity_groups, identity_pending_groups, identity_project_members,
                identity_member_versions, identity_favorites;
       DELETE FROM identity_users WHERE id NOT IN (1, -1337, -42); UPDATE identity_users SET root_role_id = 1 WHERE id = 1;
       DELETE FROM identity_roles WHERE id > 5; DELETE FROM identity_project_states WHERE project <> 'default';`,
      );
      await p.publish(history);
      const identity = new IdentityReadModel(p.ds);
      for (let u = 1; u <= 14; u++) expect(await identity.profile(u)).toEqual(expected.profileOf(u));
      // sanity: the history puts users in groups (the 8.x profile's `groups`, with their membership times)
      const inGroups = (await Promise.all([2, 3, 4, 5, 6].map((u) => identity.profile(u)))).flatMap(
        (x) => x.groups,
      );
      expect(inGroups.length).toBeGreaterThan(0);
      expect(inGroups.every((g) => g.createdAt !== null)).toBe(true);
      const projects = ['default', 'p1', 'p2', 'p3', 'p4'];
      expect(await identity.countMembersOfProjects(projects)).toEqual(
        projects.map((proj) => expected.countProjectMembers(proj)),
      );
      for (const proj of projects) {
        expect(await identity.countProjectMembers(proj)).toBe(expected.countProjectMembers(proj));
        for (let u = 1; u <= 14; u++) {
          expect(await identity.canSeeProject(u, proj)).toBe(expected.canSeeProject(u, proj));
          expect(await identity.isFavoriteProject(u, proj)).toBe(expected.isFavoriteProject(u, proj));
        }
      }
      const members = await p.db.query<{ n: string }>('SELECT count(*) AS n FROM identity_project_members');
      expect(Number(members[0].n)).toBe(expected.members.size);
    },
  );
});
