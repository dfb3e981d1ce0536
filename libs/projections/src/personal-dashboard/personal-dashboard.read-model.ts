import type { RowQueryable } from '@flaglens/persistence';
import type { Reads } from '../change-feed';
import { EventSummaries, type SummarisedEvent } from '../event-log/event-summary.logic';
import { wireFromStored } from '../event-log/event-wire';
import { SDK_EVENT_TYPES } from '../event-log/search-counts.logic';
import {
  GROUPS_OF_USER,
  IDENTITY_READS,
  IdentityReadModel,
  projectMembersSql,
  ROLE_OF_MEMBER,
} from '../identity/identity.read-model';
import { onboardingStatus } from '../overview/overview.logic';
import { statusHealth } from '../project-status/project-status.logic';
import {
  avatarUrl,
  detailsInsights,
  projectOwners,
  userOwner,
  type OwnerRow,
} from './personal-dashboard.logic';

/** What the personal dashboards read: flags, projects, SDK usage, the event log, and identity. */
export const PERSONAL_DASHBOARD_READS: readonly Reads[] = [
  {
    tables: ['event_log', 'flag_state', 'feature_types', 'projects', 'flag_sdk_usage', 'project_sdk_usage'],
  },
  IDENTITY_READS,
];

const NOT_SDK = `type NOT IN (${SDK_EVENT_TYPES.map((t) => `'${t}'`).join(', ')})`;

/** The role named `name` (the first, as Unleash's `WHERE name = … LIMIT 1`). */
const ROLE_NAMED = (name: string) =>
  `(SELECT min(id) FROM identity_roles WHERE name = '${name}' AND NOT deleted)`;
const OWNER_ROW = `COALESCE(m.role_id, (SELECT min(x.id) FROM identity_roles x WHERE x.name = m.role_name AND NOT x.deleted))
  = ${ROLE_NAMED('Owner')}`;

/**
 * The flags, not archived, that the user `$1` favourited or created (the flag's latest `feature-created` was
 * theirs), newest first, at most 100.
 */
const FLAGS_SQL = `
SELECT f.name, f.type, f.project FROM flag_state f
 WHERE NOT f.deleted AND f.archived_at IS NULL
   AND (EXISTS (SELECT 1 FROM identity_favorites v
                 WHERE v.user_id = $1 AND v.target = 'feature' AND v.name = f.name AND v.is_favorite)
        OR EXISTS (SELECT 1 FROM event_log e
                    WHERE e.feature_name = f.name AND e.type = 'feature-created' AND e.created_by_user_id = $1
                      AND NOT EXISTS (SELECT 1 FROM event_log l
                                       WHERE l.feature_name = f.name AND l.type = 'feature-created'
                                         AND (l.created_at, l.id) > (e.created_at, e.id))))
 ORDER BY f.created_at DESC, f.name COLLATE "C"
 LIMIT 100`;

/**
 * The projects `$2` (the user's, by any role) and those `$1` favourited, that exist and are not archived, by name:
 * their counts of flags not archived (stale, potentially stale at `$3` as the health counts them), members.
 */
const PROJECTS_SQL = `
WITH ids AS (SELECT unnest($2::text[]) AS id
             UNION SELECT name FROM identity_favorites WHERE user_id = $1 AND target = 'project' AND is_favorite)
SELECT p.id, p.name, c.total, c.stale, c.aged,
       (${projectMembersSql('p.id', 'NULL::timestamptz', false)}) AS members
  FROM projects p JOIN ids ON ids.id = p.id
  CROSS JOIN LATERAL (
    SELECT count(*)::int AS total, count(*) FILTER (WHERE f.stale)::int AS stale,
           count(*) FILTER (WHERE NOT f.stale AND t.lifetime_days IS NOT NULL
                              AND $3::timestamptz - f.created_at >= t.lifetime_days * interval '1 day')::int AS aged
      FROM flag_state f LEFT JOIN feature_types t ON t.id = f.type
     WHERE f.project = p.id AND NOT f.deleted AND f.archived_at IS NULL) c
 WHERE p.exists AND p.archived_at IS NULL
 ORDER BY p.name, p.id`;

/** Every project's Owner users (deleted users have none), in the order their rows were made. */
const OWNERS_SQL = `
SELECT m.project, u.id::int AS id, u.name, u.username, u.email
  FROM identity_project_members m JOIN identity_users u ON u.id = m.principal_id AND NOT u.deleted
 WHERE m.principal_kind = 'user' AND ($1::text IS NULL OR m.project = $1) AND ${OWNER_ROW}
 ORDER BY m.created_at, m.project COLLATE "C", u.id`;

const OWNER_GROUPS_SQL = `
SELECT g.name FROM identity_project_members m JOIN identity_groups g ON g.id = m.principal_id AND NOT g.deleted
 WHERE m.principal_kind = 'group' AND m.project = $1 AND ${OWNER_ROW}
 ORDER BY m.created_at, g.id`;

/** The users with the Admin root role, but system users, by id. */
const ADMINS_SQL = `
SELECT id::int AS id, name, username, email FROM identity_users
 WHERE NOT deleted AND NOT is_system AND root_role_id = ${ROLE_NAMED('Admin')}
 ORDER BY id`;

/** A project of `$1`: whether it exists (archived or not) and its flags' counts, and its onboarding signals. */
const PROJECT_SQL = `
SELECT p.archived_at IS NOT NULL AS archived,
       (SELECT json_build_object('total', count(*), 'stale', count(*) FILTER (WHERE f.stale),
                 'aged', count(*) FILTER (WHERE NOT f.stale AND t.lifetime_days IS NOT NULL
                                     AND $2::timestamptz - f.created_at >= t.lifetime_days * interval '1 day'),
                 'potentiallyStale', count(*) FILTER (WHERE NOT f.stale AND t.lifetime_days IS NOT NULL
                                     AND $2::timestamptz > f.created_at + t.lifetime_days * interval '1 day'))
          FROM flag_state f LEFT JOIN feature_types t ON t.id = f.type
         WHERE f.project = $1 AND NOT f.deleted AND f.archived_at IS NULL) AS flags,
       (EXISTS (SELECT 1 FROM project_sdk_usage s WHERE s.project = $1)
        OR EXISTS (SELECT 1 FROM flag_state f WHERE f.project = $1 AND NOT f.deleted
                      AND EXISTS (SELECT 1 FROM flag_sdk_usage u WHERE u.feature_name = f.name))) AS "sdkSeen",
       p.flag_enabled AS "flagEnabled",
       (SELECT name FROM flag_state WHERE project = $1 AND NOT deleted AND archived_at IS NULL
         ORDER BY created_at, name COLLATE "C" LIMIT 1) AS "firstFlag"
  FROM projects p WHERE p.id = $1 AND p.exists`;

const LATEST_EVENTS_SQL = `SELECT body FROM event_log WHERE project = $1 AND ${NOT_SDK}
  ORDER BY created_at DESC, id DESC LIMIT 10`;

/** The user `$1`'s own roles in the project `$2` (directly or through a group), project and custom ones, by id. */
const ROLES_SQL = `
SELECT DISTINCT r.id::int AS id, r.name, r.type FROM identity_project_members m JOIN ${ROLE_OF_MEMBER}
 WHERE m.project = $2 AND r.type IN ('project', 'custom')
   AND ((m.principal_kind = 'user' AND m.principal_id = $1)
        OR (m.principal_kind = 'group' AND m.principal_id IN (${GROUPS_OF_USER})))
 ORDER BY id`;

/** A user as Unleash's `rowToUser` leaves them: empty values dropped, the avatar added. */
function admin(u: { id: number; name: string | null; username: string | null; email: string | null }) {
  return {
    id: u.id,
    ...(u.name && { name: u.name }),
    ...(u.username && { username: u.username }),
    ...(u.email && { email: u.email }),
    imageUrl: avatarUrl(u),
  };
}

/**
 * `GET /api/admin/personal-dashboard` and `GET /api/admin/personal-dashboard/{projectId}` (Unleash 8.2.0 OSS):
 * the caller's flags and projects, every project's owners and the admins; a project's latest events, onboarding,
 * owners, the caller's roles in it and its flags' counts. docs/deviations.md, "Personal dashboard".
 */
export class PersonalDashboardReadModel {
  private readonly summaries: EventSummaries;

  constructor(
    private readonly db: RowQueryable,
    unleashUrl: string,
  ) {
    this.summaries = new EventSummaries(unleashUrl);
  }

  async dashboard(userId: number, now: Date): Promise<Record<string, unknown>> {
    const memberOf = await new IdentityReadModel(this.db).projectsOf(userId);
    const [projects, flags, owners, admins] = await Promise.all([
      this.db.query<{
        id: string;
        name: string | null;
        total: number;
        stale: number;
        aged: number;
        members: number;
      }>(PROJECTS_SQL, [userId, memberOf, now.toISOString()]),
      this.db.query<{ name: string; type: string; project: string }>(FLAGS_SQL, [userId]),
      this.db.query<OwnerRow>(OWNERS_SQL, [null]),
      this.db.query<{ id: number; name: string | null; username: string | null; email: string | null }>(
        ADMINS_SQL,
      ),
    ]);
    return {
      projects: projects.map((p) => {
        const health = statusHealth(p.total, p.stale, p.aged);
        return {
          id: p.id,
          name: p.name ?? p.id,
          health,
          technicalDebt: 100 - (health || 0),
          memberCount: p.members,
          featureCount: p.total,
        };
      }),
      flags: flags.map((f) => ({ name: f.name, type: f.type, project: f.project })),
      projectOwners: projectOwners(owners),
      admins: admins.map(admin),
    };
  }

  /** One project's details for the caller; null: no such project (archived ones answer). */
  async projectDetails(
    userId: number,
    projectId: string,
    now: Date,
  ): Promise<Record<string, unknown> | null> {
    const [project] = await this.db.query<{
      archived: boolean;
      flags: { total: number; stale: number; aged: number; potentiallyStale: number };
      sdkSeen: boolean;
      flagEnabled: boolean;
      firstFlag: string | null;
    }>(PROJECT_SQL, [projectId, now.toISOString()]);
    if (!project) return null;
    const [events, owners, groups, roles] = await Promise.all([
      this.db.query<{ body: string }>(LATEST_EVENTS_SQL, [projectId]),
      this.db.query<OwnerRow>(OWNERS_SQL, [projectId]),
      this.db.query<{ name: string }>(OWNER_GROUPS_SQL, [projectId]),
      this.db.query<{ id: number; name: string; type: string }>(ROLES_SQL, [userId, projectId]),
    ]);
    const ownerList = [
      ...owners.map(userOwner),
      ...groups.map((g) => ({ ownerType: 'group' as const, name: g.name })),
    ];
    const f = project.flags;
    return {
      latestEvents: events.map(({ body }) => {
        const e = JSON.parse(wireFromStored(body)) as SummarisedEvent & { id: number; createdAt: string };
        return {
          createdAt: e.createdAt,
          summary: this.summaries.format(e).summary,
          createdBy: e.createdBy,
          id: e.id,
          createdByImageUrl: avatarUrl({ email: e.createdBy }),
        };
      }),
      onboardingStatus: onboardingStatus(project, '8'),
      owners: ownerList.length > 0 ? ownerList : [{ ownerType: 'system' }],
      roles: roles.map((r) => ({ id: r.id, name: r.name, type: r.type })),
      insights: detailsInsights(
        project.archived
          ? null
          : {
              total: f.total,
              stale: f.stale,
              potentiallyStale: f.potentiallyStale,
              health: statusHealth(f.total, f.stale, f.aged),
            },
      ),
    };
  }
}
