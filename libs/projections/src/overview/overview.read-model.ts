import { isoText } from '../keyed-rows';
import type { QueryResultRow } from 'pg';
import { isReadPool, type ReadPool, type RowQueryable } from '@flaglens/persistence';
import { averageTimeToProduction } from '../time-to-production/time-to-production.logic';
import { firstProductionEnable } from '../time-to-production/first-production-enable.read-model';
import { IDENTITY_READS, projectMembersSql } from '../identity/identity.read-model';
import { answeringRelease, SUPPORTED_RELEASES } from '@flaglens/contract';
import { answersSdkConnected, onboardingStatus } from './overview.logic';
import type { Reads } from '../change-feed';

/** A caller's favourite projects (the overview's members are counted in its own statement). */
export interface ProjectAccessReader {
  /** The caller has favourited the project. */
  favorite(projectId: string, userId: number): Promise<boolean>;
}

/**
 * What a project's overview reads (its body: state and activity), by project: a notice naming one of these
 * tables at a project (or at one of its flags: the feed names their projects) drops that project's overview
 * (change-feed.ts). The seeded project's creation time (the log's first event) comes with `projects`: the
 * batch holding the instance's first event writes every project's row.
 */
export const OVERVIEW_READS = {
  by: 'projects',
  tables: [
    'event_log',
    'unleash_release',
    'flag_state',
    'projects',
    'project_environments',
    'project_activity_daily',
    'flag_sdk_usage',
    'project_sdk_usage',
    'identity_users',
    'identity_groups',
    'identity_group_users',
    'identity_project_members',
    'environments',
    'feature_types',
  ],
} satisfies Reads;

/**
 * What the overview's body as of an instant reads (as-of.ts `readAsOf`'s `reads`): the body, and the caller's
 * favourite (IdentityReadModel.accessToProject).
 */
export const OVERVIEW_AS_OF_READS: readonly Reads[] = [OVERVIEW_READS, IDENTITY_READS];

/** What only the overview's activity (ActivityRow) reads: the event log, the release word, the daily activity. */
const ACTIVITY_ONLY_READS = new Set(['event_log', 'unleash_release', 'project_activity_daily']);

/**
 * What the overview's state reads (OverviewState): OVERVIEW_READS but what only the activity reads, and of
 * `projects` only its `settings` part (not a project's latest event time). A batch that writes only those (most
 * batches: a flag's strategies, variants, environments' switches) leaves the state of its projects as it is.
 */
export const OVERVIEW_STATE_READS: Reads = {
  by: 'projects',
  tables: OVERVIEW_READS.tables
    .filter((t) => !ACTIVITY_ONLY_READS.has(t))
    .map((t) => (t === 'projects' ? 'projects.settings' : t)),
};

/** Health (semantics §3.4): 100 − stale% − potentiallyStale%, JS rounding; an empty project scores 100. */
export function healthRating(total: number, stale: number, potentiallyStale: number): number {
  if (total === 0) return 100;
  return Math.round(100 - (100 * stale) / total - (100 * potentiallyStale) / total) || 0;
}

/** The overview's state: everything but its activity (below), as the statement returns it. */
interface StateRow {
  name: string;
  description: string | null;
  mode: string;
  default_stickiness: string;
  feature_limit: number | null;
  naming_pattern: string | null;
  naming_example: string | null;
  naming_description: string | null;
  link_templates: Record<string, unknown>[];
  created_at: string | null;
  archived_at: string | null;
  now_at: string;
  total: number;
  stale: number;
  potentially_stale: number;
  created_current: number;
  created_past: number;
  archived_current: number;
  archived_past: number;
  type_counts: { type: string; count: number }[] | null;
  environments: Record<string, unknown>[] | null;
  onboarded: boolean;
  first_flag: string | null;
  members: number;
  members_added: number;
  state_valid_until: number | null;
}

/** The overview's activity: what the event log gives (activity windows, `updatedAt`, time to production). */
interface ActivityRow {
  updated_at: string | null;
  activity_current: number;
  activity_past: number;
  prod_days: number[] | null;
  /** the release the topic last said (`unleash_release`), null when none did */
  unleash_release: string | null;
  /** a feature-environment-enabled event of the project in the log (read for Unleash 8+ only) */
  flag_enabled: boolean;
  activity_valid_until: number | null;
}

/**
 * The part of a project's overview that the event log's growth leaves as it is (flags' counts and health,
 * settings, environments, members, onboarding), at one instant, and how long it stays exact. Kept apart from
 * the activity, which every event of the project changes (OVERVIEW_STATE_READS says what changes the state).
 */
export interface OverviewState {
  readonly row: Readonly<StateRow>;
  /** the `?archived=` flag counts it holds */
  readonly archivedFlags: boolean;
  /** The clock instant it was computed for (epoch ms). */
  readonly at: number;
  /** Epoch ms: exact at any instant in [at, validUntil); null: from `at` on. */
  readonly validUntil: number | null;
}

/** The caller-independent overview of one project at one instant, and how long it stays exact. */
export interface OverviewSnapshot {
  /** The body with `favorite: false`, keys in the reference's order (see `withFavorite`). */
  body: Record<string, unknown>;
  /** The clock instant it was computed for (epoch ms). */
  at: number;
  /**
   * Epoch ms: every value of `body` is the same at any instant in [at, validUntil) (the next window edge,
   * potentially-stale crossing or archive instant); null: at any instant from `at` on.
   */
  validUntil: number | null;
}

/** Whether a snapshot computed at `s.at` is still exactly the body at `now` (epoch ms). */
export const snapshotValidAt = (s: Pick<OverviewSnapshot, 'at' | 'validUntil'>, now: number): boolean =>
  now === s.at || (now > s.at && (s.validUntil === null || now < s.validUntil));

/** The body of a snapshot for a caller (`favorite` in its place). */
export const withFavorite = (body: Record<string, unknown>, favorite: boolean): Record<string, unknown> => ({
  ...body,
  favorite,
});

const ISO = isoText;

/** The project, read as of `$2` (an archived one as of its archive time), and its windows. */
const PROJECT_CTES = `
WITH p AS (
  SELECT p.*, COALESCE(p.created_at, CASE WHEN p.seeded THEN (SELECT min(created_at) FROM event_log) END) AS created,
         LEAST(COALESCE(p.archived_at, $2::timestamptz), $2::timestamptz) AS now_at
    FROM projects p WHERE p.id = $1 AND p.exists
), w AS (
  SELECT now_at, c, pw, (c AT TIME ZONE 'UTC')::date AS c_day, (pw AT TIME ZONE 'UTC')::date AS pw_day,
         date_trunc('day', c AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' AS c_day_start,
         (date_trunc('day', c AT TIME ZONE 'UTC') + interval '1 day') AT TIME ZONE 'UTC' AS c_day_end,
         (date_trunc('day', pw AT TIME ZONE 'UTC') + interval '1 day') AT TIME ZONE 'UTC' AS pw_day_end
    FROM (SELECT now_at, now_at - interval '30 days' AS c, now_at - interval '60 days' AS pw FROM p) x
), f AS (
  SELECT f.name, f.type, f.stale, f.created_at, f.archived_at, ft.lifetime_days
    FROM flag_state f LEFT JOIN feature_types ft ON ft.id = f.type
   WHERE f.project = $1 AND NOT f.deleted
)`;

/** Epoch ms of the earliest of `instants` (SQL), floored; null for a project frozen at its archive instant. */
const changeAhead = (instants: string[]): string =>
  `CASE WHEN p.archived_at <= $2::timestamptz THEN NULL
        ELSE floor(extract(epoch FROM LEAST(p.archived_at, ${instants.join(', ')})) * 1000)::float8 END`;

/**
 * The overview's state (OverviewState), as columns over `p`, `w` and `agg` (index lookups on the project's
 * rows; the event log is touched only for `min(created_at)`, an index endpoint, for a seeded project).
 */
const STATE_COLUMNS = `
       p.name, p.description, p.mode, p.default_stickiness, p.feature_limit, p.naming_pattern, p.naming_example,
       p.naming_description, p.link_templates, ${ISO('p.created')} AS created_at, ${ISO('p.archived_at')} AS archived_at,
       ${ISO('p.now_at')} AS now_at, agg.total, agg.stale, agg.potentially_stale, agg.created_current,
       agg.created_past, agg.archived_current, agg.archived_past,
       (SELECT json_agg(json_build_object('type', type, 'count', n) ORDER BY type COLLATE "C")
          FROM (SELECT type, count(*)::int AS n FROM f WHERE (archived_at IS NOT NULL) = $3 GROUP BY type) tc) AS type_counts,
       (SELECT json_agg(CASE WHEN pe.default_strategy IS NULL THEN json_build_object('environment', e.name)
                             ELSE json_build_object('environment', e.name, 'defaultStrategy', pe.default_strategy) END
                        ORDER BY e.sort_order, e.name COLLATE "C")
          FROM environments e LEFT JOIN project_environments pe ON pe.project = $1 AND pe.environment = e.name
         WHERE NOT e.deleted
           AND (pe.linked IS TRUE
                OR (pe.linked IS NULL AND p.link_enabled_envs AND e.enabled
                    AND (e.created_at IS NULL OR e.created_at <= p.created)))) AS environments,
       -- a flag's usage by its key, one lookup per flag until the first hit (as a join, the plan kept by the
       -- read pool hashed the whole usage table on every read: overview.int-spec.ts)
       (EXISTS (SELECT 1 FROM project_sdk_usage s WHERE s.project = $1)
        OR EXISTS (SELECT 1 FROM f WHERE (SELECT true FROM flag_sdk_usage u WHERE u.feature_name = f.name))) AS onboarded,
       (SELECT name FROM f WHERE archived_at IS NULL ORDER BY created_at, name COLLATE "C" LIMIT 1) AS first_flag,
       -- members (semantics §3.5), and those added in the current window (the instant the project is read at)
       (${projectMembersSql('$1', 'NULL::timestamptz')}) AS members,
       (${projectMembersSql('$1', "(w.now_at - interval '720 hours')")}) AS members_added,
       ${changeAhead([
         'agg.flags_edge',
         `(SELECT min(m.created_at) FROM identity_project_members m
            WHERE m.project = $1 AND m.created_at >= w.now_at - interval '720 hours') + interval '720 hours'`,
       ])} AS state_valid_until`;

/** The flags' counts of the state, and the next instants at which one of them can change. */
const AGG_CTE = `, agg AS (
  SELECT count(*) FILTER (WHERE archived_at IS NULL)::int AS total,
         count(*) FILTER (WHERE archived_at IS NULL AND stale)::int AS stale,
         count(*) FILTER (WHERE archived_at IS NULL AND NOT stale AND lifetime_days IS NOT NULL
                            AND created_at + lifetime_days * interval '24 hours' <= w.now_at)::int AS potentially_stale,
         count(*) FILTER (WHERE archived_at IS NULL AND created_at >= w.c)::int AS created_current,
         count(*) FILTER (WHERE archived_at IS NULL AND created_at BETWEEN w.pw AND w.c)::int AS created_past,
         count(*) FILTER (WHERE archived_at >= w.c)::int AS archived_current,
         count(*) FILTER (WHERE archived_at BETWEEN w.pw AND w.c)::int AS archived_past,
         -- the next instants at which a time-dependent count can change (window edges, staleness crossings)
         LEAST(min(created_at) FILTER (WHERE archived_at IS NULL AND created_at >= w.c) + interval '30 days',
               min(created_at) FILTER (WHERE archived_at IS NULL AND created_at >= w.pw) + interval '60 days',
               min(archived_at) FILTER (WHERE archived_at >= w.c) + interval '30 days',
               min(archived_at) FILTER (WHERE archived_at >= w.pw) + interval '60 days',
               min(created_at + lifetime_days * interval '24 hours')
                 FILTER (WHERE archived_at IS NULL AND NOT stale AND lifetime_days IS NOT NULL
                           AND created_at + lifetime_days * interval '24 hours' > w.now_at)) AS flags_edge
    FROM f, w
)`;

/**
 * The releases whose onboarding never answers `sdk-connected` (overview.logic.ts), as a SQL list: for them the
 * statement skips the look-up of an enabled flag. Which release is followed is read in the same statement
 * (`unleash_release`, docs/source-connector.md), so an upgrade changes the answer without a restart.
 */
const RELEASES_WITHOUT_SDK_CONNECTED = SUPPORTED_RELEASES.filter((r) => !answersSdkConnected(r))
  .map((r) => `'${r}'`)
  .join(', ');

/**
 * The overview's activity, as columns over `p`, `w` and `f`: every event of the project changes it (index
 * range scans of the project's daily counts and of the event log at the windows' partial days).
 */
const ACTIVITY_COLUMNS = `
       ${ISO('COALESCE(p.last_event_at, p.created)')} AS updated_at,
       (SELECT release FROM unleash_release) AS unleash_release,
       CASE WHEN (SELECT release FROM unleash_release) IN (${RELEASES_WITHOUT_SDK_CONNECTED}) THEN false
            -- any enable of the project's ever (the projects projection keeps it): no instant bounds it, so the
            -- answer does not change with the read instant alone (the cache's validUntil stays exact)
            ELSE p.flag_enabled
       END AS flag_enabled,
       (SELECT COALESCE(sum(d.n), 0)::int FROM project_activity_daily d WHERE d.project = $1 AND d.day > w.c_day)
         + (SELECT count(*)::int FROM event_log a
             WHERE a.project = $1 AND a.known_type AND a.created_at >= w.c AND a.created_at < w.c_day_end) AS activity_current,
       (SELECT COALESCE(sum(d.n), 0)::int FROM project_activity_daily d
         WHERE d.project = $1 AND d.day > w.pw_day AND d.day < w.c_day)
         + (SELECT count(*)::int FROM event_log a
             WHERE a.project = $1 AND a.known_type AND a.created_at >= w.pw AND a.created_at < w.pw_day_end)
         + (SELECT count(*)::int FROM event_log a
             WHERE a.project = $1 AND a.known_type AND a.created_at >= w.c_day_start AND a.created_at <= w.c) AS activity_past,
       -- time to production: the first production enable of each release flag, from the event log
       (SELECT array_agg(floor(extract(epoch FROM (t.first_at - f.created_at)) / 86400)::int)
          FROM f CROSS JOIN ${firstProductionEnable('f')}
         WHERE f.type = 'release' AND t.first_at IS NOT NULL) AS prod_days,
       ${changeAhead([
         `(SELECT min(a.created_at) FROM event_log a WHERE a.project = $1 AND a.known_type AND a.created_at >= w.c)
            + interval '30 days'`,
         `(SELECT min(a.created_at) FROM event_log a WHERE a.project = $1 AND a.known_type AND a.created_at >= w.pw)
            + interval '60 days'`,
       ])} AS activity_valid_until`;

/**
 * Everything of the overview in one statement: its state and its activity ($1 project, $2 instant, $3
 * `?archived=`). Archived projects are read as of their archive time (the reference freezes their stats and
 * health).
 */
export const OVERVIEW_SQL = `${PROJECT_CTES}${AGG_CTE}
SELECT ${STATE_COLUMNS},
       ${ACTIVITY_COLUMNS}
  FROM p, w, agg`;

/** The overview's activity alone ($1 project, $2 instant), for a state read before and still exact. */
export const OVERVIEW_ACTIVITY_SQL = `${PROJECT_CTES}
SELECT ${ACTIVITY_COLUMNS}
  FROM p, w`;

/** The earlier of two instants ahead (epoch ms), null meaning none. */
const earlier = (a: number | null, b: number | null): number | null =>
  a === null ? b : b === null ? a : Math.min(a, b);

/** The overview of one project, every field of api-spec 2.12, fresh at read time. */
export class OverviewReadModel {
  constructor(
    /** A read pool (then the statements are prepared once per connection, by name) or any row source. */
    private readonly db: RowQueryable | ReadPool,
  ) {}

  private async rows<R extends QueryResultRow>(name: string, text: string, values: unknown[]): Promise<R[]> {
    if (isReadPool(this.db)) return (await this.db.pool().query<R>({ name, text, values })).rows;
    return this.db.query(text, values);
  }

  /**
   * The caller-independent overview of a project (favorite false; the api adds the caller's favorite), keys
   * in the reference's order, with the instant until which it is exact; null when the project does not exist.
   * `archivedFlags`: the reference's undeclared `?archived=` query (semantics §3, any non-empty value): then
   * `featureTypeCounts` counts the project's archived flags instead of its live ones; nothing else changes.
   */
  async snapshot(projectId: string, now: Date, archivedFlags = false): Promise<OverviewSnapshot | null> {
    return (await this.read(projectId, now, archivedFlags)).snapshot;
  }

  /**
   * The overview at `now`, and its state to keep for later reads (both null when the project does not exist).
   * Given a state read before and exact at `now` (`snapshotValidAt`) of the same `archivedFlags`, only the
   * activity is read.
   */
  async read(
    projectId: string,
    now: Date,
    archivedFlags = false,
    known?: OverviewState,
  ): Promise<{ snapshot: OverviewSnapshot | null; state: OverviewState | null }> {
    if (known && known.archivedFlags === archivedFlags && snapshotValidAt(known, now.getTime())) {
      const [a] = await this.rows<ActivityRow>('flaglens-overview-activity', OVERVIEW_ACTIVITY_SQL, [
        projectId,
        now.toISOString(),
      ]);
      // no row: the project is gone since the state was read
      return a
        ? { snapshot: compose(known, a, now.getTime()), state: known }
        : { snapshot: null, state: null };
    }
    const [r] = await this.rows<StateRow & ActivityRow>('flaglens-overview', OVERVIEW_SQL, [
      projectId,
      now.toISOString(),
      archivedFlags,
    ]);
    if (!r) return { snapshot: null, state: null };
    const {
      updated_at,
      unleash_release,
      activity_current,
      activity_past,
      prod_days,
      flag_enabled,
      activity_valid_until,
      ...row
    } = r;
    const activity = {
      updated_at,
      unleash_release,
      activity_current,
      activity_past,
      prod_days,
      flag_enabled,
      activity_valid_until,
    };
    const state: OverviewState = { row, archivedFlags, at: now.getTime(), validUntil: row.state_valid_until };
    return { snapshot: compose(state, activity, now.getTime()), state };
  }
}

/** The body of the overview from its state and its activity read at `at`. */
function compose(state: OverviewState, a: ActivityRow, at: number): OverviewSnapshot {
  const r = state.row;
  const onboarding = onboardingStatus(
    { sdkSeen: r.onboarded, flagEnabled: a.flag_enabled, firstFlag: r.first_flag },
    answeringRelease(a.unleash_release),
  );
  const health = healthRating(r.total, r.stale, r.potentially_stale);
  const body = {
    stats: {
      avgTimeToProdCurrentWindow: averageTimeToProduction(a.prod_days ?? []),
      createdCurrentWindow: r.created_current,
      createdPastWindow: r.created_past,
      archivedCurrentWindow: r.archived_current,
      archivedPastWindow: r.archived_past,
      projectActivityCurrentWindow: a.activity_current,
      projectActivityPastWindow: a.activity_past,
      projectMembersAddedCurrentWindow: r.members_added,
    },
    name: r.name,
    description: r.description,
    mode: r.mode,
    featureLimit: r.feature_limit,
    featureNaming: {
      pattern: r.naming_pattern,
      example: r.naming_example,
      description: r.naming_description,
    },
    linkTemplates: r.link_templates,
    defaultStickiness: r.default_stickiness,
    health,
    technicalDebt: 100 - health,
    favorite: false,
    updatedAt: a.updated_at,
    ...(r.archived_at !== null ? { archivedAt: r.archived_at } : {}),
    createdAt: r.created_at,
    onboardingStatus: onboarding,
    environments: r.environments ?? [],
    featureTypeCounts: r.type_counts ?? [],
    members: r.members,
    version: 1,
  };
  return { body, at, validUntil: earlier(state.validUntil, a.activity_valid_until) };
}
