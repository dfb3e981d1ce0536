import type { FlagEvent } from '@flaglens/contract';
import type { RowQueryable } from '@flaglens/persistence';
import type { Reads } from '../change-feed';
import { SDK_EVENT_TYPES } from '../event-log/search-counts.logic';
import { IDENTITY_READS, projectMembersSql } from '../identity/identity.read-model';
import { LIFECYCLE_READS, LifecycleReadModel } from '../lifecycle/lifecycle.read-model';
import {
  projectLifecycleSummary,
  projectSegments,
  projectTokens,
  statusHealth,
  type ProjectLifecycleSummary,
} from './project-status.logic';

/** What the project status reads: a project's flags, their types and lifecycles, its events, its members. */
export const PROJECT_STATUS_READS: readonly Reads[] = [
  { by: 'projects', tables: ['event_log', 'flag_state', 'feature_types'] },
  LIFECYCLE_READS,
  IDENTITY_READS,
];

/** Unleash 8.2.0's answer, keys in its order. */
export interface ProjectStatus {
  resources: { members: number; apiTokens: number; segments: number };
  activityCountByDate: { date: string; count: number }[];
  health: { current: number };
  technicalDebt: { current: number };
  lifecycleSummary: ProjectLifecycleSummary;
  staleFlags: { total: number };
}

/** The event types that make and unmake a project's tokens and segments (project-status.logic.ts). */
const RESOURCE_TYPES = [
  'api-token-created',
  'api-token-deleted',
  'segment-created',
  'segment-updated',
  'segment-deleted',
  'project-deleted',
];

/**
 * The project's flags that are not archived: how many, stale, potentially stale as the health counts them (at
 * least their type's lifetime old at `$2`) and as the stale count does (older than it); the members, as
 * Unleash's status counts them (projectMembersSql: a group without members counts once).
 */
const FLAGS_SQL = `
SELECT count(*)::int AS total,
       count(*) FILTER (WHERE f.stale)::int AS stale,
       count(*) FILTER (WHERE NOT f.stale AND t.lifetime_days IS NOT NULL
                          AND $2::timestamptz - f.created_at >= t.lifetime_days * interval '1 day')::int AS aged,
       count(*) FILTER (WHERE f.stale OR (t.lifetime_days IS NOT NULL
                          AND $2::timestamptz > f.created_at + t.lifetime_days * interval '1 day'))::int AS "staleOrAged",
       (${projectMembersSql('$1', 'NULL::timestamptz')}) AS members
  FROM flag_state f LEFT JOIN feature_types t ON t.id = f.type
 WHERE f.project = $1 AND NOT f.deleted AND f.archived_at IS NULL`;

/** The project's own events per UTC day in the year up to `$2` (SDK traffic is not an event of Unleash's). */
const ACTIVITY_SQL = `
SELECT to_char((created_at AT TIME ZONE 'UTC')::date, 'YYYY-MM-DD') AS date, count(*)::int AS count
  FROM event_log
 WHERE project = $1 AND created_at >= $2::timestamptz - interval '1 year' AND created_at <= $2::timestamptz
   AND type NOT IN (${SDK_EVENT_TYPES.map((t) => `'${t}'`).join(', ')})
 GROUP BY 1 ORDER BY 1`;

const RESOURCES_SQL = `SELECT body FROM event_log WHERE type = ANY($1::text[]) ORDER BY created_at, id`;

/**
 * `GET /api/admin/projects/{projectId}/status` (Unleash 8.2.0 OSS): a project's resources, its daily activity over
 * the last year, its health and technical debt now, its lifecycle summary and its stale flags. Any project id
 * answers, an unknown one with zeros, as Unleash does. docs/deviations.md, "Project status".
 */
export class ProjectStatusReadModel {
  constructor(private readonly db: RowQueryable) {}

  async status(project: string, now: Date): Promise<ProjectStatus> {
    const at = now.toISOString();
    const [[flags], activity, resources, lifecycleFlags] = await Promise.all([
      this.db.query<{ total: number; stale: number; aged: number; staleOrAged: number; members: number }>(
        FLAGS_SQL,
        [project, at],
      ),
      this.db.query<{ date: string; count: number }>(ACTIVITY_SQL, [project, at]),
      this.db.query<{ body: string }>(RESOURCES_SQL, [RESOURCE_TYPES]),
      new LifecycleReadModel(this.db).projectFlags(project),
    ]);
    const events = resources.map((r) => JSON.parse(r.body) as FlagEvent);
    const health = statusHealth(flags.total, flags.stale, flags.aged);
    return {
      resources: {
        members: flags.members,
        apiTokens: projectTokens(events, project),
        segments: projectSegments(events, project),
      },
      activityCountByDate: activity.map((a) => ({ date: a.date, count: a.count })),
      health: { current: health },
      technicalDebt: { current: 100 - health },
      lifecycleSummary: projectLifecycleSummary(lifecycleFlags, now),
      staleFlags: { total: flags.staleOrAged },
    };
  }
}
