import { DAY_MS, WEEK_MS } from '../time';
import type { RowQueryable } from '@flaglens/persistence';
import { healthRating } from '../overview/overview.read-model';
import { firstProductionEnable } from '../time-to-production/first-production-enable.read-model';

export interface UserTrend {
  date: string;
  total: number;
  active: number;
  inactive: number;
}
export interface FlagTrend {
  date: string;
  total: number;
  active: number;
  stale: number;
  potentiallyStale: number;
}
export interface ProjectFlagTrend {
  week: string;
  project: string;
  date: string;
  total: number;
  active: number;
  stale: number;
  potentiallyStale: number;
  health: number;
  /** 100 − health (Unleash 7+; `health` stays, deprecated there) */
  technicalDebt: number;
  /** days, one decimal (semantics §3.3); 0 when no release flag of the project reached production yet */
  timeToProduction: number;
  /** members (semantics §3.5) as of now: on the current week's rows only (no membership history is kept) */
  users?: number;
}
export interface MetricsSummaryTrend {
  week: string;
  project: string;
  date: string;
  totalRequests: number;
  totalYes: number;
  totalNo: number;
  totalApps: number;
  totalFlags: number;
  totalEnvironments: number;
}
export interface EnvironmentTypeTrend {
  week: string;
  date: string;
  environmentType: string;
  totalUpdates: number;
}
/** Unleash 7+: flags that reached production in the week (one row per projectFlagTrends row). */
export interface LifecycleTrend {
  week: string;
  date: string;
  project: string;
  newProductionFlags: number;
}
/** Unleash 7+: flags created (by type) and archived in the week (one row per projectFlagTrends row). */
export interface CreationArchiveTrend {
  week: string;
  date: string;
  project: string;
  createdFlags: Record<string, number>;
  archivedFlags: number;
}
/** api-spec 2.13, and the two arrays Unleash 7+ adds */
export interface InstanceInsights {
  userTrends: UserTrend[];
  flagTrends: FlagTrend[];
  projectFlagTrends: ProjectFlagTrend[];
  metricsSummaryTrends: MetricsSummaryTrend[];
  environmentTypeTrends: EnvironmentTypeTrend[];
  lifecycleTrends: LifecycleTrend[];
  creationArchiveTrends: CreationArchiveTrend[];
}

interface ProjectFlagRow {
  d: string;
  ws: string;
  week: string;
  project: string;
  total: number;
  stale: number;
  ps: number;
}

/** A stored week (PROJECT_FLAGS_STORED_SQL, METRICS_STORED_SQL): its rows as one JSON array of value lists. */
interface StoredWeek {
  d: string;
  ws: string;
  week: string;
  rows: string;
}

/** METRICS_SQL's row: yes and no as bigint text when computed, as JSON numbers when stored. */
interface MetricRow {
  d: string;
  week: string;
  project: string;
  yes: string | number;
  no: string | number;
  apps: number;
  flags: number;
  envs: number;
}

export interface InsightsRange {
  /** inclusive bounds on a row's date (`YYYY-MM-DD`), or null for none */
  from: string | null;
  to: string | null;
}

/**
 * The weeks of the report: from the week of the first event (or of `from`, or of the earliest week allowed,
 * whichever is latest) to the week of `today` (or of `to`): `ws` its Monday, `d` the described day (Sunday, or
 * today for the current week), `e` the instant just after that day (exclusive bound), `inr` whether `d` is in
 * the requested range. Only the weeks of the range are generated, so an event dated in year 1000 costs
 * nothing. $1 today, $2 from, $3 to, $4 the earliest Monday allowed (InsightsReadModel.maxWeeks).
 */
const WEEKS = `
weeks AS (
  SELECT ws::date AS ws, LEAST(ws::date + 6, $1::date) AS d,
         (LEAST(ws::date + 6, $1::date) + 1)::timestamp AT TIME ZONE 'UTC' AS e,
         to_char(ws, 'IYYY-IW') AS week,
         (LEAST(ws::date + 6, $1::date) BETWEEN COALESCE($2::date, '-infinity') AND COALESCE($3::date, 'infinity')) AS inr
    FROM (SELECT (min(created_at) AT TIME ZONE 'UTC')::date AS first FROM event_log) f,
         generate_series(date_trunc('week', GREATEST(f.first, $2::date, $4::date)),
                         date_trunc('week', LEAST($1::date, $3::date)), interval '7 days') ws
   WHERE f.first <= $1::date
)`;

const PROJECT_FLAGS_COLUMNS = `to_char(c.d, 'YYYY-MM-DD') AS d, to_char(c.ws, 'YYYY-MM-DD') AS ws, c.week, c.project,
       c.total::int AS total, c.stale::int AS stale, c.ps::int AS ps`;

/**
 * Per (week, live project): flags live, stale and potentially stale as of the week's date. $5: the private
 * projects the caller may not see (left out here and in every per-project figure below).
 */
export const PROJECT_FLAGS_SQL = `
WITH ${WEEKS},
${projectFlagsBody('weeks')}
SELECT ${PROJECT_FLAGS_COLUMNS}
  FROM cum c JOIN plive USING (ws, project)
 ORDER BY c.ws, c.project`;

/**
 * The per-project flag figures from a weeks CTE named `w` (the columns of WEEKS): running sums over every
 * delta up to each week (deltas before the first week of `w` collapse into it), so a row's figures do not
 * depend on where `w` starts. Defines `plive` (the live projects per week) and `cum` (the figures).
 */
function projectFlagsBody(w: string, fromBase = false): string {
  // the deltas before the cut ($6), already summed per project, stand for themselves (collapsed likewise)
  const fd = fromBase
    ? `fd AS (
  SELECT project, ($6::date - 7) AS ws, total AS t, stale AS s, ps FROM insights_project_base
  UNION ALL
  SELECT project, date_trunc('week', day)::date AS ws, sum(d_total) AS t, sum(d_stale) AS s, 0 AS ps
    FROM insights_flag_deltas WHERE day >= $6::date AND day <= $1::date GROUP BY 1, 2
  UNION ALL
  -- the fresh flags that turn potentially stale in the weeks from the cut (the later of the delta's day and the
  -- end of its lifetime), in two disjoint halves, each read from an index: by the day, and by the creation day
  SELECT f.project, date_trunc('week', f.day)::date, 0, 0, sum(f.d_fresh)
    FROM insights_flag_deltas f JOIN feature_types ft ON ft.id = f.type AND ft.lifetime_days > 0
   WHERE f.day BETWEEN $6::date AND $1::date AND f.day >= f.created_day + ft.lifetime_days GROUP BY 1, 2
  UNION ALL
  -- (per type, in a subquery the planner cannot flatten: one index range per type, however many it guesses)
  SELECT x.project, x.ws, 0, 0, x.n
    FROM feature_types ft CROSS JOIN LATERAL (
      SELECT f.project, date_trunc('week', f.created_day + ft.lifetime_days)::date AS ws, sum(f.d_fresh) AS n
        FROM insights_flag_deltas f
       WHERE f.type = ft.id AND f.created_day BETWEEN $6::date - ft.lifetime_days AND $1::date - ft.lifetime_days
         AND f.created_day + ft.lifetime_days > f.day
       GROUP BY 1, 2) x
   WHERE ft.lifetime_days > 0
)`
    : `fd AS (
  SELECT project, date_trunc('week', day)::date AS ws, sum(d_total) AS t, sum(d_stale) AS s, 0 AS ps
    FROM insights_flag_deltas WHERE day <= $1::date GROUP BY 1, 2
  UNION ALL
  SELECT f.project, date_trunc('week', GREATEST(f.day, f.created_day + ft.lifetime_days))::date, 0, 0, sum(f.d_fresh)
    FROM insights_flag_deltas f JOIN feature_types ft ON ft.id = f.type AND ft.lifetime_days > 0
   WHERE GREATEST(f.day, f.created_day + ft.lifetime_days) <= $1::date GROUP BY 1, 2
)`;
  return `pc AS (
  SELECT project, at, live, lead(at) OVER (PARTITION BY project ORDER BY event_id) AS nxt
    FROM insights_project_changes
), plive AS (
  SELECT DISTINCT w.ws, pc.project FROM ${w} w JOIN pc ON pc.live AND pc.at < w.e AND (pc.nxt IS NULL OR pc.nxt >= w.e)
   WHERE w.inr AND pc.project <> ALL($5::text[])
), ${fd}, r AS (
  SELECT min(ws) AS lo, max(ws) AS hi FROM ${w} WHERE inr
), fr AS (
  -- deltas before the range collapse into its first week (the running sums start from them)
  SELECT fd.project, GREATEST(fd.ws, r.lo) AS ws, fd.t, fd.s, fd.ps FROM fd, r WHERE fd.ws <= r.hi
), grid AS (
  SELECT w.ws, w.d, w.week, p.project, COALESCE(sum(fr.t), 0) AS t, COALESCE(sum(fr.s), 0) AS s,
         COALESCE(sum(fr.ps), 0) AS ps
    FROM ${w} w CROSS JOIN (SELECT DISTINCT project FROM plive) p
    LEFT JOIN fr ON fr.project = p.project AND fr.ws = w.ws
   WHERE w.inr
   GROUP BY 1, 2, 3, 4
), cum AS (
  SELECT ws, d, week, project, sum(t) OVER k AS total, sum(s) OVER k AS stale, sum(ps) OVER k AS ps
    FROM grid WINDOW k AS (PARTITION BY project ORDER BY ws)
)`;
}

/**
 * Where the stored weeks (insights.weeks.ts) stop serving a report: the first invalidated or unstored week, at
 * most the current week's Monday; -infinity (nothing stored is used) when the report starts before the stored
 * weeks do, or the first event is now earlier than when they were stored (an event of an unknown type). Parameters as WEEKS.
 */
export const STORED_CUT_SQL = `
WITH ${WEEKS}
SELECT c::text AS cut, c = base_at AS base
  FROM (SELECT CASE WHEN (SELECT min(ws) FROM weeks WHERE inr) >= s.valid_from
                         AND (SELECT (min(created_at) AT TIME ZONE 'UTC')::date FROM event_log) >= s.first_day
                    THEN LEAST(s.valid_until, date_trunc('week', $1::date)::date) ELSE '-infinity'::date END AS c,
               s.base_at
          FROM insights_weeks_stored s) x`;

/**
 * PROJECT_FLAGS_SQL's rows of the weeks before the cut ($6), from the stored weeks: one row per week, its
 * projects' rows as JSON `[project, total, stale, ps]` in the order of PROJECT_FLAGS_SQL (fewer values to parse).
 */
export const PROJECT_FLAGS_STORED_SQL = `
WITH ${WEEKS}
SELECT to_char(w.d, 'YYYY-MM-DD') AS d, to_char(w.ws, 'YYYY-MM-DD') AS ws, w.week,
       json_agg(json_build_array(s.project, s.total, s.stale, s.ps) ORDER BY s.project)::text AS rows
  FROM insights_project_weeks s JOIN weeks w ON w.ws = s.ws AND w.inr
 WHERE s.ws < $6::date AND s.project <> ALL($5::text[])
 GROUP BY w.ws, w.d, w.week
 ORDER BY w.ws`;

/**
 * PROJECT_FLAGS_TAIL_SQL when the stored base is as of the cut ($6): the running sums start from each
 * project's sums before the cut (insights_project_base) instead of every delta since the first.
 */
export const PROJECT_FLAGS_TAIL_FROM_BASE_SQL = `
WITH ${WEEKS},
tail AS (SELECT ws, d, e, week, inr AND ws >= $6::date AS inr FROM weeks),
${projectFlagsBody('tail', true)}
SELECT ${PROJECT_FLAGS_COLUMNS}
  FROM cum c JOIN plive USING (ws, project)
 ORDER BY c.ws, c.project`;

/** PROJECT_FLAGS_SQL's rows of the weeks from the cut ($6) on, computed (the same running sums). */
export const PROJECT_FLAGS_TAIL_SQL = `
WITH ${WEEKS},
tail AS (SELECT ws, d, e, week, inr AND ws >= $6::date AS inr FROM weeks),
${projectFlagsBody('tail')}
SELECT ${PROJECT_FLAGS_COLUMNS}
  FROM cum c JOIN plive USING (ws, project)
 ORDER BY c.ws, c.project`;

/** Every project that was ever live (insights_project_changes), but the hidden ones ($1). */
const EVER_LIVE_SQL = `SELECT DISTINCT project FROM insights_project_changes WHERE live AND project <> ALL($1::text[])`;

export const WEEKS_SQL = `WITH ${WEEKS} SELECT to_char(d, 'YYYY-MM-DD') AS d, week FROM weeks WHERE inr ORDER BY ws`;

/**
 * Time to production (semantics §3.3) per project and week of the flag's first production enable: release
 * flags as they are now (current project and type, archived included, deleted excluded), the first enable
 * after creation in an environment whose current type is production (one index probe per environment);
 * whole days. Weeks before the range collapse into its first week (running sums start from them).
 */
export const TTP_SQL = `
WITH ${WEEKS},
r AS (SELECT min(ws) AS lo, max(ws) AS hi FROM weeks WHERE inr),
fe AS (
  SELECT f.project, date_trunc('week', t.first_at AT TIME ZONE 'UTC')::date AS ws,
         floor(extract(epoch FROM (t.first_at - f.created_at)) / 86400)::int AS days
    FROM flag_state f CROSS JOIN ${firstProductionEnable('f')}
   WHERE NOT f.deleted AND f.type = 'release' AND t.first_at IS NOT NULL
     AND (t.first_at AT TIME ZONE 'UTC')::date <= $1::date AND f.project <> ALL($5::text[])
)
SELECT fe.project, to_char(GREATEST(fe.ws, r.lo), 'YYYY-MM-DD') AS ws, sum(fe.days)::int AS days,
       count(*)::int AS n
  FROM fe, r WHERE fe.ws <= r.hi GROUP BY 1, 2 ORDER BY 1, 2`;

/**
 * The week's flag lifecycle per project (Unleash 7+ `lifecycleTrends`, `creationArchiveTrends`): flags as
 * they are now (current project and type, deleted left out, those of the private projects the caller may not
 * see ($5) too), counted in the UTC week of their creation (`created`, by type), of their archiving
 * (`archived`: archived now) and of their first enable in an environment whose current type is production
 * after creation (`production`, as time to production finds it), for the weeks of the range.
 */
export const LIFECYCLE_SQL = `
WITH ${WEEKS},
r AS (SELECT min(ws) AS lo, max(d) AS hi FROM weeks WHERE inr),
f AS (SELECT * FROM flag_state WHERE NOT deleted AND project <> ALL($5::text[])),
x AS (
  SELECT project, created_at AS at, 'created' AS k, type FROM f
  UNION ALL SELECT project, archived_at, 'archived', '' FROM f WHERE archived_at IS NOT NULL
  UNION ALL SELECT f.project, t.first_at, 'production', '' FROM f CROSS JOIN ${firstProductionEnable('f')}
             WHERE t.first_at IS NOT NULL
)
SELECT x.project, to_char(date_trunc('week', x.at AT TIME ZONE 'UTC'), 'YYYY-MM-DD') AS ws, x.k, x.type,
       count(*)::int AS n
  FROM x, r WHERE (x.at AT TIME ZONE 'UTC')::date BETWEEN r.lo AND r.hi
 GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, x.type COLLATE "C"`;

/**
 * Users: total as of the date, active = authored an event within [date − 59 d, date] (60 UTC days) and existing
 * then (created before the end of the date, not deleted by it). Each stored user-week makes its user active on
 * the days [its first day, its last day + 59]; a user's overlapping spans are merged into disjoint ones and
 * clipped to the days the user existed, so a week's active users are the spans covering its date. One pass over
 * the user-weeks of the range, whatever its length (a week by week count read every user-week of the 9 weeks
 * before each week: 1.4 million index probes for 3 years of 2,000 users). With `fromCut`, only the weeks from the
 * cut ($5) on (a week's figures do not depend on the weeks around it).
 */
const usersSql = (fromCut: boolean) => `
WITH ${WEEKS},
r AS (SELECT min(d) AS lo, max(d) AS hi FROM weeks WHERE inr${fromCut ? ' AND ws >= $5::date' : ''}),
span AS (
  SELECT a.user_id, a.first_day AS s, a.last_day + 59 AS e
    FROM insights_user_weeks a, r
   -- a user-week's days are within its week (its Monday to its Sunday), so a span reaching r.lo starts from a
   -- week on or after r.lo - 65: the bound that lets the key's index read those weeks alone
   WHERE a.week <= r.hi AND a.week >= r.lo - 65 AND a.last_day + 59 >= r.lo
), marked AS (
  SELECT user_id, s, e,
         CASE WHEN s <= max(e) OVER (PARTITION BY user_id ORDER BY s, e ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) + 1
              THEN 0 ELSE 1 END AS starts
    FROM span
), island AS (
  SELECT user_id, s, e, sum(starts) OVER (PARTITION BY user_id ORDER BY s, e) AS n FROM marked
), active AS MATERIALIZED (
  SELECT GREATEST(min(i.s), (u.created_at AT TIME ZONE 'UTC')::date) AS s,
         LEAST(max(i.e), COALESCE((u.deleted_at AT TIME ZONE 'UTC')::date - 1, 'infinity')) AS e
    FROM island i JOIN insights_users u ON u.id = i.user_id AND u.created_at IS NOT NULL
   GROUP BY i.user_id, i.n, u.created_at, u.deleted_at
)
SELECT to_char(w.d, 'YYYY-MM-DD') AS d, to_char(w.ws, 'YYYY-MM-DD') AS ws,
       (SELECT count(*) FROM insights_users u
         WHERE u.created_at < w.e AND (u.deleted_at IS NULL OR u.deleted_at >= w.e))::int AS total,
       (SELECT count(*) FROM active a WHERE a.s <= w.d AND a.e >= w.d)::int AS active
  FROM weeks w WHERE w.inr${fromCut ? ' AND w.ws >= $5::date' : ''} ORDER BY w.ws`;
export const USERS_SQL = usersSql(false);

/** USERS_SQL's rows of the weeks from the cut ($5) on, computed. */
export const USERS_TAIL_SQL = usersSql(true);

/** USERS_SQL's rows of the weeks before the cut ($5), from the stored weeks. */
export const USERS_STORED_SQL = `
WITH ${WEEKS}
SELECT to_char(w.d, 'YYYY-MM-DD') AS d, to_char(w.ws, 'YYYY-MM-DD') AS ws, s.total, s.active
  FROM insights_user_totals_weeks s JOIN weeks w ON w.ws = s.ws AND w.inr
 WHERE s.ws < $5::date
 ORDER BY w.ws`;

/** ENV_TYPES_SQL, or with `fromCut` only its weeks from the cut ($6) on. */
const envTypesSql = (fromCut: boolean) => `
WITH ${WEEKS}
SELECT to_char(w.d, 'YYYY-MM-DD') AS d, w.week, e.type, sum(u.n)::bigint AS n
  FROM weeks w
  JOIN insights_env_project_updates u ON u.day BETWEEN w.ws AND w.d AND u.project <> ALL($5::text[])
  JOIN environments e ON e.name = u.environment AND NOT e.deleted
 WHERE w.inr${fromCut ? ' AND w.ws >= $6::date' : ''}
 GROUP BY w.ws, w.d, w.week, e.type
 ORDER BY w.ws, e.type`;

/**
 * Updates per week and current environment type (deleted and unknown environments drop out, as `*`), but
 * those of the private projects the caller may not see ($5).
 */
export const ENV_TYPES_SQL = envTypesSql(false);

/** ENV_TYPES_SQL's rows of the weeks before the cut ($6), from the stored weeks (hidden projects subtracted). */
export const ENV_TYPES_STORED_SQL = `
WITH ${WEEKS},
s AS (
  SELECT ws, environment, n FROM insights_env_weeks WHERE ws < $6::date
  UNION ALL
  SELECT ws, environment, -n FROM insights_env_project_weeks WHERE ws < $6::date AND project = ANY($5::text[])
)
SELECT to_char(w.d, 'YYYY-MM-DD') AS d, w.week, e.type, sum(s.n)::bigint AS n
  FROM s JOIN weeks w ON w.ws = s.ws AND w.inr
  JOIN environments e ON e.name = s.environment AND NOT e.deleted
 GROUP BY w.ws, w.d, w.week, e.type
HAVING sum(s.n) > 0
 ORDER BY w.ws, e.type`;

/** ENV_TYPES_SQL's rows of the weeks from the cut ($6) on. */
export const ENV_TYPES_TAIL_SQL = envTypesSql(true);

/**
 * SDK metrics per week and project (the flag's current project, else the event's project); with `fromCut`, only
 * the weeks from the cut ($6) on.
 */
const metricsSql = (fromCut: boolean) => `
WITH ${WEEKS}
SELECT to_char(w.d, 'YYYY-MM-DD') AS d, to_char(w.ws, 'YYYY-MM-DD') AS ws, w.week, x.project, sum(x.yes)::bigint AS yes, sum(x.no)::bigint AS no,
       count(DISTINCT x.app)::int AS apps, count(DISTINCT x.feature)::int AS flags,
       count(DISTINCT x.environment)::int AS envs
  FROM weeks w
  JOIN LATERAL (
    SELECT COALESCE(f.project, NULLIF(m.project_hint, '')) AS project, m.app, m.feature, m.environment, m.yes, m.no
      FROM insights_metrics m LEFT JOIN flag_state f ON f.name = m.feature AND NOT f.deleted
     WHERE m.day BETWEEN w.ws AND w.d
  ) x ON x.project IS NOT NULL AND x.project <> ALL($5::text[])
 WHERE w.inr${fromCut ? ' AND w.ws >= $6::date' : ''}
 GROUP BY w.ws, w.d, w.week, x.project
 ORDER BY w.ws, x.project`;
export const METRICS_SQL = metricsSql(false);

/** METRICS_SQL's rows of the weeks from the cut ($6) on, computed. */
export const METRICS_TAIL_SQL = metricsSql(true);

/**
 * METRICS_SQL's rows of the weeks before the cut ($6), from the stored weeks (hidden projects left out): one row
 * per week, its projects' rows as JSON `[project, yes, no, apps, flags, envs]` in the order of METRICS_SQL (a
 * row per week, not per project and week: 156 rows instead of 23,000 for 3 years of 200 projects).
 */
export const METRICS_STORED_SQL = `
WITH ${WEEKS}
SELECT to_char(w.d, 'YYYY-MM-DD') AS d, to_char(w.ws, 'YYYY-MM-DD') AS ws, w.week,
       json_agg(json_build_array(s.project, s.yes, s.no, s.apps, s.flags, s.envs) ORDER BY s.project)::text AS rows
  FROM insights_metric_weeks s JOIN weeks w ON w.ws = s.ws AND w.inr
 WHERE s.ws < $6::date AND s.project <> ALL($5::text[])
 GROUP BY w.ws, w.d, w.week
 ORDER BY w.ws`;

const endOfDay = (d: string) => `${d}T23:59:59.999Z`;

/** The instance insights report (api-spec 2.13), from the pre-aggregates, as of `now`. */
/** The most weeks one report covers, unless told otherwise: ten years. */
export const DEFAULT_INSIGHTS_MAX_WEEKS = 520;

/** The Monday (`YYYY-MM-DD`) of the week of a UTC day. */
export function mondayOf(day: string): string {
  const t = Date.parse(`${day}T00:00:00Z`);
  return new Date(t - ((new Date(t).getUTCDay() + 6) % 7) * DAY_MS).toISOString().slice(0, 10);
}

/** How many weeks (Monday to Monday, both counted) the range [from, to] spans. */
export function weeksSpanned(from: string, to: string): number {
  return Math.floor((Date.parse(mondayOf(to)) - Date.parse(mondayOf(from))) / WEEK_MS) + 1;
}

export class InsightsReadModel {
  constructor(
    private readonly db: RowQueryable,
    /**
     * members of each project now, in the order given (the identity read model's `countMembersOfProjects`);
     * without it `users` is left out
     */
    private readonly members?: (projectIds: string[]) => Promise<number[]>,
    /**
     * The most weeks a report covers: without `from`, the report starts this many weeks before the current
     * one at the earliest (older history is summed into its first week), so its cost never depends on how far
     * back event dates go. A range asking for more is the caller's error (see `weeksSpanned`).
     */
    readonly maxWeeks = DEFAULT_INSIGHTS_MAX_WEEKS,
    /**
     * Read the closed weeks' per-project flag figures from the stored weeks (insights.weeks.ts) where they
     * are valid; false computes every week (the reference the stored path is tested against).
     */
    private readonly storedWeeks = true,
  ) {}

  /**
   * Where the stored weeks stop serving this report, and whether the computed weeks' running sums may start
   * from the stored base; -infinity (every week computed) without stored weeks.
   */
  private async cut(ph: unknown[]): Promise<{ cut: string; base: boolean }> {
    if (!this.storedWeeks) return { cut: '-infinity', base: false };
    const [c] = await this.db.query<{ cut: string; base: boolean }>(STORED_CUT_SQL, ph.slice(0, 4));
    return c ?? { cut: '-infinity', base: false };
  }

  /**
   * One part's rows: those of `all` when no stored week serves the report (the cut at -infinity), else the
   * stored weeks before the cut (`stored`) followed by the weeks from it, computed (`tail`); the cut is the
   * statements' last parameter. With `perWeek`, `stored` answers a row per week, its rows as one JSON array of
   * value lists (fewer rows to send and parse), each turned into the part's row by `perWeek`.
   */
  private async storedThenComputed<Row, Values extends unknown[] = never>(
    [all, stored, tail]: readonly [string, string, string],
    params: unknown[],
    { cut }: { cut: string },
    perWeek?: (week: StoredWeek, values: Values) => Row,
  ): Promise<Row[]> {
    if (cut === '-infinity') return this.db.query<Row>(all, params);
    const pc = [...params, cut];
    const [before, from] = await Promise.all([
      this.db.query<Row | StoredWeek>(stored, pc),
      this.db.query<Row>(tail, pc),
    ]);
    // every stored week precedes every computed one: the two ordered lists follow each other
    const kept = perWeek
      ? (before as StoredWeek[]).flatMap((w) => (JSON.parse(w.rows) as Values[]).map((v) => perWeek(w, v)))
      : (before as Row[]);
    return kept.concat(from);
  }

  /**
   * The report as of `now`, for the weeks whose date is in `range`, leaving out every row and figure of the
   * `hidden` projects (private projects the caller may not see): flag, health, time to production, member,
   * SDK and environment-update figures, and the instance sums built from them.
   */
  async report(
    now: Date,
    range: InsightsRange = { from: null, to: null },
    hidden: readonly string[] = [],
  ): Promise<InstanceInsights> {
    const today = now.toISOString().slice(0, 10);
    const earliest = new Date(Date.parse(mondayOf(today)) - (this.maxWeeks - 1) * WEEK_MS)
      .toISOString()
      .slice(0, 10);
    const p = [today, range.from, range.to, earliest];
    const ph = [...p, [...hidden]];
    // the parts that read stored weeks wait for the cut; the others start at once
    const cut = this.cut(ph);
    // the current week's members, counted beside the rest for every project ever live: the week's rows are
    // those of projects live then (plive: a live change point), so all of them are among these
    const members = this.members;
    // (asked once the cut is known, with the parts that wait for it: the statements go out in one order)
    const early = members
      ? cut
          .then(() => this.db.query<{ project: string }>(EVER_LIVE_SQL, [[...hidden]]))
          .then(async (rows) => {
            const ids = rows.map((r) => r.project);
            const counts = await members(ids);
            return new Map(ids.map((id, i) => [id, counts[i]]));
          })
      : null;
    // a rejection is taken where it is awaited, below
    early?.catch(() => undefined);
    const [weeks, projectRows, userRows, envRows, metricRows, ttpRows, lifecycleRows] = await Promise.all([
      this.db.query<{ d: string; week: string }>(WEEKS_SQL, p),
      cut.then((c) =>
        this.storedThenComputed<ProjectFlagRow, [string, number, number, number]>(
          [
            PROJECT_FLAGS_SQL,
            PROJECT_FLAGS_STORED_SQL,
            c.base ? PROJECT_FLAGS_TAIL_FROM_BASE_SQL : PROJECT_FLAGS_TAIL_SQL,
          ],
          ph,
          c,
          ({ d, ws, week }, [project, total, stale, ps]) => ({ d, ws, week, project, total, stale, ps }),
        ),
      ),
      cut.then((c) =>
        this.storedThenComputed<{ d: string; total: number; active: number }>(
          [USERS_SQL, USERS_STORED_SQL, USERS_TAIL_SQL],
          p,
          c,
        ),
      ),
      cut.then((c) =>
        this.storedThenComputed<{ d: string; week: string; type: string; n: string }>(
          [ENV_TYPES_SQL, ENV_TYPES_STORED_SQL, ENV_TYPES_TAIL_SQL],
          ph,
          c,
        ),
      ),
      cut.then((c) =>
        this.storedThenComputed<MetricRow, [string, number, number, number, number, number]>(
          [METRICS_SQL, METRICS_STORED_SQL, METRICS_TAIL_SQL],
          ph,
          c,
          ({ d, week }, [project, yes, no, apps, flags, envs]) => ({
            d,
            week,
            project,
            yes,
            no,
            apps,
            flags,
            envs,
          }),
        ),
      ),
      this.db.query<{ project: string; ws: string; days: number; n: number }>(TTP_SQL, ph),
      this.db.query<{ project: string; ws: string; k: string; type: string; n: number }>(LIFECYCLE_SQL, ph),
    ]);
    // the answer holds about 100,000 rows (200 projects × 156 weeks × 3 lists): each row's figures are
    // looked up once, and its date is the week's one string
    const dates = new Map<string, string>();
    const dateOf = (d: string): string => {
      let date = dates.get(d);
      if (date === undefined) dates.set(d, (date = endOfDay(d)));
      return date;
    };
    type Lifecycle = { created: Record<string, number>; archived: number; production: number };
    const lifecycle = new Map<string, Map<string, Lifecycle>>(); // project → week → figures
    for (const l of lifecycleRows) {
      let weeksOf = lifecycle.get(l.project);
      if (!weeksOf) lifecycle.set(l.project, (weeksOf = new Map()));
      let c = weeksOf.get(l.ws);
      if (!c) weeksOf.set(l.ws, (c = { created: {}, archived: 0, production: 0 }));
      if (l.k === 'created') c.created[l.type] = l.n;
      else if (l.k === 'archived') c.archived = l.n;
      else c.production = l.n;
    }
    const lifecycleOf = (r: { ws: string; project: string }): Lifecycle =>
      lifecycle.get(r.project)?.get(r.ws) ?? { created: {}, archived: 0, production: 0 };
    // running (days, flags) per project; rows of both lists are ordered by week
    const ttpBins = new Map<string, { ws: string; days: number; n: number }[]>();
    for (const t of ttpRows) {
      const bins = ttpBins.get(t.project);
      if (bins) bins.push(t);
      else ttpBins.set(t.project, [t]);
    }
    const ttpRun = new Map<string, { i: number; days: number; n: number }>();
    const timeToProduction = (project: string, ws: string): number => {
      const bins = ttpBins.get(project) ?? [];
      const run = ttpRun.get(project) ?? { i: 0, days: 0, n: 0 };
      while (run.i < bins.length && bins[run.i].ws <= ws) {
        run.days += bins[run.i].days;
        run.n += bins[run.i].n;
        run.i++;
      }
      ttpRun.set(project, run);
      if (run.n === 0) return 0;
      const rounded = Number((run.days / run.n).toFixed(1));
      return rounded === 0 ? 0.1 : rounded;
    };
    const projectFlagTrends: ProjectFlagTrend[] = projectRows.map((r) => {
      const health = healthRating(r.total, r.stale, r.ps);
      return {
        week: r.week,
        project: r.project,
        date: dateOf(r.d),
        total: r.total,
        active: r.total - r.stale - r.ps,
        stale: r.stale,
        potentiallyStale: r.ps,
        health,
        technicalDebt: 100 - health,
        timeToProduction: timeToProduction(r.project, r.ws),
      };
    });
    if (early) {
      const current = projectFlagTrends.filter((r) => r.date.startsWith(today));
      const counted = await early;
      for (const r of current) r.users = counted.get(r.project);
    }
    const figures = projectRows.map(lifecycleOf);
    const byDay = new Map<string, FlagTrend>();
    for (const w of weeks)
      byDay.set(w.d, { date: dateOf(w.d), total: 0, active: 0, stale: 0, potentiallyStale: 0 });
    for (const [i, r] of projectFlagTrends.entries()) {
      const f = byDay.get(projectRows[i].d);
      if (!f) continue;
      f.total += r.total;
      f.active += r.active;
      f.stale += r.stale;
      f.potentiallyStale += r.potentiallyStale;
    }
    return {
      userTrends: userRows.map((r) => ({
        date: dateOf(r.d),
        total: r.total,
        active: r.active,
        inactive: r.total - r.active,
      })),
      flagTrends: [...byDay.values()],
      projectFlagTrends,
      metricsSummaryTrends: metricRows.map((r) => ({
        week: r.week,
        project: r.project,
        date: dateOf(r.d),
        totalRequests: Number(r.yes) + Number(r.no),
        totalYes: Number(r.yes),
        totalNo: Number(r.no),
        totalApps: r.apps,
        totalFlags: r.flags,
        totalEnvironments: r.envs,
      })),
      environmentTypeTrends: envRows.map((r) => ({
        week: r.week,
        date: dateOf(r.d),
        environmentType: r.type,
        totalUpdates: Number(r.n),
      })),
      lifecycleTrends: projectRows.map((r, i) => ({
        week: r.week,
        date: projectFlagTrends[i].date,
        project: r.project,
        newProductionFlags: figures[i].production,
      })),
      creationArchiveTrends: projectRows.map((r, i) => ({
        week: r.week,
        date: projectFlagTrends[i].date,
        project: r.project,
        createdFlags: figures[i].created,
        archivedFlags: figures[i].archived,
      })),
    };
  }
}
