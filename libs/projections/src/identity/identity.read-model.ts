import type { RowQueryable } from '@flaglens/persistence';
import { ADMIN_ROLE_ID, VIEWER_ROLE_ID } from './identity.logic';
import { DEFAULT_PROJECT, SUBSCRIPTION_TYPES } from './identity-seed';
import { isoText } from '../keyed-rows';
import { countMemberSets } from './member-sets';
import type { Reads } from '../change-feed';

/**
 * What the answers about callers read (who a token's or a session's caller is, their profile, the projects
 * they may see, their favourites): identity's tables and the tokens, by no one key: a batch (or a
 * revocation) writing any of them drops them all (change-feed.ts).
 */
export const IDENTITY_READS: Reads = {
  tables: [
    'identity_users',
    'identity_roles',
    'identity_groups',
    'identity_group_users',
    'identity_project_members',
    'identity_project_states',
    'identity_favorites',
    'personal_access_tokens',
  ],
};

/**
 * One of the caller's groups as the Unleash 8.x profile answers it: the reference reads `groups` joined to
 * `group_user` with `SELECT *`, so `createdAt`/`createdBy` are those of the caller's membership (when and by
 * whom they were added), not of the group.
 */
export interface ProfileGroup {
  id: number;
  name: string;
  rootRole: number | null;
  description: string;
  mappingsSSO: string[];
  createdBy: string;
  createdAt: string | null;
  scimId: string | null;
}

/** The body of GET /api/admin/user/profile (Unleash 8.x keys; `groups`, `canChangePassword` since 8.0). */
export interface Profile {
  projects: string[];
  groups: ProfileGroup[];
  rootRole: { id: number; name: string; type: string; description: string | null };
  subscriptions: string[];
  features: never[];
  canChangePassword: boolean;
}

/** The reference's `Group` default of `createdBy` (its system user's name). */
export const PROFILE_GROUP_DEFAULT_CREATED_BY = 'unleash_system_user';

/**
 * `canChangePassword`: the reference answers whether the user has a local password hash. No audit event
 * says so (creating a user with a password, an invitation's reset link and a password change store none),
 * so every user is answered as having one, as the initial admin and password-created users do
 * (docs/deviations.md).
 */
export const canChangePassword = (_userId: number): boolean => true;

/** The role a membership row `m` points at: by id, or by name (the lowest id of a live role with it). */
export const ROLE_OF_MEMBER = `identity_roles r ON r.id = COALESCE(m.role_id,
  (SELECT min(x.id) FROM identity_roles x WHERE x.name = m.role_name AND NOT x.deleted))`;

/**
 * The rows members are counted from (semantics §3.5), as the CTEs of a WITH, of the membership rows that match
 * `memberships` (an SQL condition on `identity_project_members`): `direct` (project, user_id), the users holding a
 * non-root role in the project, deleted users excluded; `via` (project, group_id, user_id), the live users of each
 * live group with a role in it, user_id NULL for a group without any. `m` is not materialized: each of its two
 * uses reads its own kind of rows from the key, where a materialized `m` would copy every matching row first.
 */
function memberRowsSql(memberships: string): string {
  return `m AS NOT MATERIALIZED (SELECT * FROM identity_project_members WHERE ${memberships}),
       direct AS (
         SELECT m.project, m.principal_id AS user_id FROM m
           LEFT JOIN identity_users u ON u.id = m.principal_id
           LEFT JOIN ${ROLE_OF_MEMBER}
          WHERE m.principal_kind = 'user' AND NOT COALESCE(u.deleted, false) AND r.type IS DISTINCT FROM 'root'),
       grp AS (
         SELECT DISTINCT m.project, m.principal_id AS group_id FROM m
           LEFT JOIN identity_groups g ON g.id = m.principal_id
          WHERE m.principal_kind = 'group' AND NOT COALESCE(g.deleted, false)),
       live AS (
         SELECT gu.group_id, gu.user_id FROM identity_group_users gu
           LEFT JOIN identity_users u ON u.id = gu.user_id WHERE NOT COALESCE(u.deleted, false)),
       via AS (SELECT grp.project, grp.group_id, live.user_id FROM grp LEFT JOIN live ON live.group_id = grp.group_id)`;
}

/**
 * Members of the project `project` (an SQL expression) counted as semantics §3.5 says, from membership rows
 * created at or after `since` (an SQL expression; NULL: all of them): a statement giving one integer. Users
 * holding a non-root role in the project, directly or through a group that has a role in it; deleted users
 * excluded; an empty group adds one (the reference's NULL row, counted by its `count(*)`), unless
 * `emptyGroupCounts` is false (the personal dashboard's `count(user_id)`).
 */
export function projectMembersSql(project: string, since: string, emptyGroupCounts = true): string {
  return `WITH ${memberRowsSql(`project = ${project} AND (${since} IS NULL OR created_at >= ${since})`)}
       SELECT ((SELECT count(*) FROM (SELECT user_id FROM direct UNION SELECT user_id FROM via WHERE user_id IS NOT NULL) x)
             + ${emptyGroupCounts ? '(CASE WHEN EXISTS (SELECT 1 FROM via WHERE user_id IS NULL) THEN 1 ELSE 0 END)' : '0'})::int`;
}

/** Live groups the user belongs to. */
export const GROUPS_OF_USER = `SELECT gu.group_id FROM identity_group_users gu
  JOIN identity_groups g ON g.id = gu.group_id AND NOT g.deleted WHERE gu.user_id = $1`;

/**
 * Reads of the identity projection (same rules as IdentityState's reads, in SQL).
 * Used by the profile endpoint, the auth guard, and (after the merge) the project overview.
 */
export class IdentityReadModel {
  constructor(private readonly db: RowQueryable) {}

  /** GET /api/admin/user/profile (semantics §2, §7.3), keys in the reference order. */
  async profile(userId: number): Promise<Profile> {
    const [projects, groups, rootRole] = await Promise.all([
      this.projectsOf(userId),
      this.groupsOf(userId),
      this.rootRoleOf(userId),
    ]);
    return {
      projects,
      groups,
      rootRole,
      subscriptions: [...SUBSCRIPTION_TYPES],
      features: [],
      canChangePassword: canChangePassword(userId),
    };
  }

  /** The user's live groups, by id, with their settings and the user's membership (ProfileGroup). */
  async groupsOf(userId: number): Promise<ProfileGroup[]> {
    const rows: { groups: ProfileGroup[] }[] = await this.db.query(
      `SELECT COALESCE(json_agg(json_build_object(
                'id', g.id, 'name', COALESCE(g.name, ''), 'rootRole', g.details->'rootRole',
                'description', COALESCE(g.details->>'description', ''),
                'mappingsSSO', COALESCE(g.details->'mappingsSSO', '[]'::jsonb),
                'createdBy', COALESCE(gu.created_by, $2), 'createdAt', ${isoText('gu.created_at')},
                'scimId', g.details->'scimId') ORDER BY g.id), '[]') AS groups
         FROM identity_group_users gu JOIN identity_groups g ON g.id = gu.group_id AND NOT g.deleted
        WHERE gu.user_id = $1`,
      [userId, PROFILE_GROUP_DEFAULT_CREATED_BY],
    );
    return rows[0]?.groups ?? [];
  }

  /** Projects of the user: root-role row (`default`), direct roles, roles of their groups; archived ones left out. */
  async projectsOf(userId: number): Promise<string[]> {
    const rows: { projects: string[] }[] = await this.db.query(
      `WITH p AS (
         SELECT $2::text AS project FROM identity_users WHERE id = $1 AND root_role_id IS NOT NULL
         UNION SELECT project FROM identity_project_members WHERE principal_kind = 'user' AND principal_id = $1
         UNION SELECT project FROM identity_project_members
                WHERE principal_kind = 'group' AND principal_id IN (${GROUPS_OF_USER}))
       SELECT COALESCE(array_agg(p.project ORDER BY p.project COLLATE "C"), '{}') AS projects
         FROM p LEFT JOIN identity_project_states s ON s.project = p.project
        WHERE s.project IS NULL OR (NOT s.archived AND (s.present OR s.reset_event_id = 0))`,
      [userId, DEFAULT_PROJECT],
    );
    return rows[0]?.projects ?? [];
  }

  /** The user's root role; the predefined Viewer when none (semantics §2.1). */
  async rootRoleOf(userId: number): Promise<Profile['rootRole']> {
    const rows: Profile['rootRole'][] = await this.db.query(
      `SELECT * FROM (
         SELECT 0 AS o, r.id::int AS id, r.name, r.type, r.description FROM identity_users u
           JOIN identity_roles r ON r.id = u.root_role_id AND r.type IN ('root', 'root-custom')
          WHERE u.id = $1
         UNION ALL
         SELECT 1, id::int, name, type, description FROM identity_roles WHERE id = $2) t
       ORDER BY o LIMIT 1`,
      [userId, VIEWER_ROLE_ID],
    );
    const r = rows[0];
    return { id: r.id, name: r.name, type: r.type, description: r.description };
  }

  /**
   * Members of a project (semantics §3.5): distinct users holding a non-root role in it, directly or
   * through a group that has a role in it; deleted users excluded; an empty group adds one (the
   * reference's NULL row, counted by its `count(*)`).
   */
  async countProjectMembers(projectId: string): Promise<number> {
    return this.countMembers(projectId, null);
  }

  /**
   * countProjectMembers of each project: the counts in the order of `projectIds`. One statement reads each table
   * once for all the projects (`memberRowsSql`) and answers sets, not pairs: each project's direct members and
   * live groups, and each of those groups' live users. Their unions are made here (`countMemberSets`, bit sets): a
   * group is in many projects, so the pairs of project and member through a group are far more than the rows read
   * (243,000 for 200 projects of 24 groups of 52 users), and counting them distinct in SQL sorts them all.
   */
  async countMembersOfProjects(projectIds: readonly string[]): Promise<number[]> {
    if (projectIds.length === 0) return [];
    const rows: { kind: 'direct' | 'groups' | 'users'; key: string; ids: string[] }[] = await this.db.query(
      // ids as text: the same user is the same string whether it came directly or through a group
      `WITH ${memberRowsSql('project = ANY($1::text[])')}
       SELECT 'direct' AS kind, project AS key, array_agg(user_id::text) AS ids FROM direct GROUP BY project
       UNION ALL
       SELECT 'groups', project, array_agg(group_id::text) FROM grp GROUP BY project
       UNION ALL
       SELECT 'users', group_id::text, array_agg(user_id::text) FROM live
        WHERE group_id IN (SELECT group_id FROM grp) GROUP BY group_id`,
      [projectIds],
    );
    const direct = new Map<string, string[]>();
    const groups = new Map<string, string[]>();
    const users = new Map<string, string[]>();
    for (const r of rows)
      (r.kind === 'direct' ? direct : r.kind === 'groups' ? groups : users).set(r.key, r.ids);
    return countMemberSets(projectIds, { direct, groups, users });
  }

  /** Members counted as §3.5 says, only from membership rows created at or after `since` when given. */
  private async countMembers(projectId: string, since: Date | null): Promise<number> {
    const rows: { n: number }[] = await this.db.query(
      `SELECT (${projectMembersSql('$1', '$2::timestamptz')}) AS n`,
      [projectId, since],
    );
    return rows[0]?.n ?? 0;
  }

  /**
   * Whether the user may see the project: always for a project that is not `private` (or not known
   * here); for a private one, only admins (root role Admin) and members (directly or through a group).
   */
  async canSeeProject(userId: number, projectId: string): Promise<boolean> {
    const rows: { ok: boolean }[] = await this.db.query(
      `SELECT CASE
         WHEN COALESCE((SELECT mode FROM identity_project_states WHERE project = $2), 'open') <> 'private' THEN true
         WHEN EXISTS (SELECT 1 FROM identity_users WHERE id = $1 AND deleted) THEN false
         WHEN EXISTS (SELECT 1 FROM identity_users u JOIN identity_roles r ON r.id = u.root_role_id
                       AND r.type IN ('root', 'root-custom') WHERE u.id = $1 AND r.id = $3) THEN true
         WHEN EXISTS (SELECT 1 FROM identity_project_members m WHERE m.project = $2 AND (
                (m.principal_kind = 'user' AND m.principal_id = $1)
             OR (m.principal_kind = 'group' AND m.principal_id IN (${GROUPS_OF_USER})))) THEN true
         ELSE false END AS ok`,
      [userId, projectId, ADMIN_ROLE_ID],
    );
    return rows[0]?.ok === true;
  }

  /**
   * What the user may see of a project, in one statement whose work is the same for a private project they
   * are not a member of and for a project that does not exist: `visible` is false for both (admins see every
   * project that exists, and are told `visible` for any id: whether it exists is answered by the overview),
   * and the user's favourite.
   */
  async accessToProject(userId: number, projectId: string): Promise<{ visible: boolean; favorite: boolean }> {
    const rows: { visible: boolean; favorite: boolean }[] = await this.db.query(
      `SELECT CASE
         WHEN EXISTS (SELECT 1 FROM identity_users u JOIN identity_roles r ON r.id = u.root_role_id
                       AND r.type IN ('root', 'root-custom') WHERE u.id = $1 AND NOT u.deleted AND r.id = $3) THEN true
         WHEN s.project IS NULL OR NOT s.present THEN false
         WHEN s.mode <> 'private' THEN true
         WHEN EXISTS (SELECT 1 FROM identity_project_members m WHERE m.project = $2 AND (
                (m.principal_kind = 'user' AND m.principal_id = $1)
             OR (m.principal_kind = 'group' AND m.principal_id IN (${GROUPS_OF_USER})))) THEN true
         ELSE false END AS visible,
         COALESCE((SELECT is_favorite FROM identity_favorites
                    WHERE user_id = $1 AND target = 'project' AND name = $2), false) AS favorite
         FROM (SELECT 1) one LEFT JOIN identity_project_states s ON s.project = $2`,
      [userId, projectId, ADMIN_ROLE_ID],
    );
    return { visible: rows[0]?.visible === true, favorite: rows[0]?.favorite === true };
  }

  /**
   * The private projects the user may not see (empty for admins and when no project is private): their
   * events are left out of the event lists the user reads.
   */
  async hiddenProjects(userId: number): Promise<string[]> {
    const rows: { hidden: string[] }[] = await this.db.query(
      `SELECT COALESCE(array_agg(s.project ORDER BY s.project), '{}') AS hidden
         FROM identity_project_states s
        WHERE s.mode = 'private'
          AND NOT EXISTS (SELECT 1 FROM identity_users u JOIN identity_roles r ON r.id = u.root_role_id
                           WHERE u.id = $1 AND NOT u.deleted AND r.id = $2)
          AND NOT EXISTS (SELECT 1 FROM identity_project_members m WHERE m.project = s.project AND (
                 (m.principal_kind = 'user' AND m.principal_id = $1)
              OR (m.principal_kind = 'group' AND m.principal_id IN (${GROUPS_OF_USER}))))`,
      [userId, ADMIN_ROLE_ID],
    );
    return rows[0]?.hidden ?? [];
  }

  async isFavoriteProject(userId: number, projectId: string): Promise<boolean> {
    return this.isFavorite(userId, 'project', projectId);
  }

  async isFavoriteFeature(userId: number, featureName: string): Promise<boolean> {
    return this.isFavorite(userId, 'feature', featureName);
  }

  private async isFavorite(userId: number, target: string, name: string): Promise<boolean> {
    const rows: { f: boolean }[] = await this.db.query(
      `SELECT is_favorite AS f FROM identity_favorites WHERE user_id = $1 AND target = $2 AND name = $3`,
      [userId, target, name],
    );
    return rows[0]?.f === true;
  }

  /**
   * stats.projectMembersAddedCurrentWindow (semantics §3.3): distinct users with a non-root role in P
   * whose row was created at or after `since`, and members of groups whose role in P was; +1 for an
   * empty such group.
   */
  async countProjectMembersAddedSince(projectId: string, since: Date): Promise<number> {
    return this.countMembers(projectId, since);
  }

  /** A user by id, username or e-mail (case-insensitive), for the token CLI. Deleted users excluded. */
  async findUser(ref: string): Promise<{ id: number; username: string | null; email: string | null } | null> {
    const rows: { id: number; username: string | null; email: string | null }[] = await this.db.query(
      `SELECT id::int AS id, username, email FROM identity_users
        WHERE NOT deleted AND (id = $2 OR lower(username) = lower($1) OR lower(email) = lower($1))
        ORDER BY id = $2 DESC, id LIMIT 1`,
      [ref, /^-?\d{1,15}$/.test(ref) ? Number(ref) : null],
    );
    return rows[0] ?? null;
  }
}
