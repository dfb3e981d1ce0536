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

/**
 * What the project status reads: a project's flags, their types and lifecycles, its events, its members. Its
 * events' day counts (`event_search_counts`) change in the transactions that store its events: `event_log` says
 * both.
 */
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

const NOT_SDK = `type NOT IN (${SDK_EVENT_TYPES.map((t) => `'${t}'`).join(', ')})`;

/**
 * The project's own events per UTC day in the year up to `$2` (SDK traffic is not an event of Unleash's), counted
 * over the log: what a read as of an instant asks (a checkpoint keeps no day counts).
 */
const ACTIVITY_SQL = `
SELECT to_char((created_at AT TIME ZONE 'UTC')::date, 'YYYY-MM-DD') AS date, count(*)::int AS count
  FROM event_log
 WHERE project = $1 AND created_at >= $2::timestamptz - interval '1 year' AND created_at <= $2::timestamptz
   AND ${NOT_SDK}
 GROUP BY 1 ORDER BY 1`;

/**
 * The same answer as ACTIVITY_SQL, read in time that does not grow with the project's history: the whole UTC days
 * between the year's first and last are summed from the project's day counts (`event_search_counts`,
 * search-counts.logic.ts: the same events, by the same UTC day); only the two partial days at its ends, from
 * `$2` less a year to the next midnight and from the last midnight to `$2`, are counted over the log.
 */
const ACTIVITY_COUNTED_SQL = `
WITH b AS (SELECT $2::timestamptz - interval '1 year' AS lo, $2::timestamptz AS hi,
                  (($2::timestamptz - interval '1 year') AT TIME ZONE 'UTC')::date AS first,
                  ($2::timestamptz AT TIME ZONE 'UTC')::date AS last),
days AS (
  SELECT c.day, c.n FROM event_search_counts c, b
   WHERE c.dim = 'project' AND c.value = $1 AND c.value2 = '' AND c.with_project
     AND c.day > b.first AND c.day < b.last
  UNION ALL
  SELECT (e.created_at AT TIME ZONE 'UTC')::date, 1 FROM event_log e, b
   WHERE e.project = $1 AND e.created_at >= b.lo AND e.created_at < (b.first + 1)::timestamp AT TIME ZONE 'UTC'
     AND e.created_at <= b.hi AND e.${NOT_SDK}
  UNION ALL
  SELECT (e.created_at AT TIME ZONE 'UTC')::date, 1 FROM event_log e, b
   WHERE e.project = $1 AND e.created_at >= b.last::timestamp AT TIME ZONE 'UTC' AND e.created_at <= b.hi AND e.${NOT_SDK}
)
SELECT to_char(day, 'YYYY-MM-DD') AS date, sum(n)::int AS count FROM days GROUP BY day HAVING sum(n) > 0 ORDER BY day`;

const RESOURCES_SQL = `SELECT body FROM event_log WHERE type = ANY($1::text[]) ORDER BY created_at, id`;

/**
 * `GET /api/admin/projects/{projectId}/status` (Unleash 8.2.0 OSS): a project's resources, its daily activity over
 * the last year, its health and technical debt now, its lifecycle summary and its stale flags. Any project id
 * answers, an unknown one with zeros, as Unleash does. docs/deviations.md, "Project status".
 */
export class ProjectStatusReadModel {
  /**
   * `activity`: 'counted' reads the project's activity from its day counts (the live projections), 'log' counts
   * it over the log (a read as of an instant, whose checkpoint keeps no counts). The same answer.
   */
  constructor(
    private readonly db: RowQueryable,
    private readonly activity: 'counted' | 'log' = 'counted',
  ) {}

  async status(project: string, now: Date): Promise<ProjectStatus> {
    const at = now.toISOString();
    const [[flags], activity, resources, lifecycleFlags] = await Promise.all([
      this.db.query<{ total: number; stale: number; aged: number; staleOrAged: number; members: number }>(
        FLAGS_SQL,
        [project, at],
      ),
      this.db.query<{ date: string; count: number }>(
        this.activity === 'counted' ? ACTIVITY_COUNTED_SQL : ACTIVITY_SQL,
        [project, at],
      ),
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
