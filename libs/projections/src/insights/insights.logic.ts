import type { FlagEvent } from '@flaglens/contract';
import type { FlagRow, FlagTransition } from '../flag-state/flag-state.logic';
import { data, int, preData, str } from '../event-fields';
import { DAY_MS, utcDays } from '../time';

/** Mondays by day: a batch has few distinct days, and this runs per event (bounded, cleared when full). */
const mondays = new Map<string, string>();

/** The Monday (UTC) of the week containing `day` (`YYYY-MM-DD`). */
export function weekStart(day: string): string {
  let monday = mondays.get(day);
  if (monday === undefined) {
    const t = Date.parse(`${day}T00:00:00Z`);
    const dow = (new Date(t).getUTCDay() + 6) % 7; // Monday 0 … Sunday 6
    monday = new Date(t - dow * DAY_MS).toISOString().slice(0, 10);
    if (mondays.size >= 10_000) mondays.clear();
    mondays.set(day, monday);
  }
  return monday;
}

/**
 * The ISO week-year id `IYYY-IW` of a day (Postgres `to_char(d, 'IYYY-IW')`): the year is the year of the
 * week's Thursday, so Monday 2024-12-30 is in `2025-01` (the reference uses the calendar year of the Monday,
 * `2024-01`, which collides with the first week of 2024).
 */
export function isoWeekId(day: string): string {
  const monday = Date.parse(`${weekStart(day)}T00:00:00Z`);
  const thursday = new Date(monday + 3 * DAY_MS);
  const year = thursday.getUTCFullYear();
  const jan1 = Date.UTC(year, 0, 1);
  const week = Math.floor((thursday.getTime() - jan1) / DAY_MS / 7) + 1;
  return `${year}-${String(week).padStart(2, '0')}`;
}

/** A flag's contribution to the weekly counts, keyed by what the read side needs (project, type, creation day). */
export interface FlagDelta {
  day: string;
  project: string;
  type: string;
  createdDay: string;
  total: number;
  stale: number;
  /** live and not stale: potentially stale once `createdDay + lifetime(type) ≤ the row's date` */
  fresh: number;
}

export interface ProjectChange {
  project: string;
  eventId: number;
  at: string;
  /** exists and not archived after this event */
  live: boolean;
}

export interface UserChange {
  id: number;
  createdAt: string | null;
  deletedAt: string | null;
}

export interface UserWeek {
  userId: number;
  week: string;
  firstDay: string;
  lastDay: string;
}

export interface MetricsRow {
  day: string;
  /** the event's project, '' when it has none (the flag's project is joined at read time) */
  projectHint: string;
  feature: string;
  app: string;
  environment: string;
  yes: number;
  no: number;
}

export interface InsightsChanges {
  flagDeltas: FlagDelta[];
  projects: ProjectChange[];
  users: UserChange[];
  userWeeks: UserWeek[];
  envUpdates: { day: string; environment: string; project: string; n: number }[];
  metrics: MetricsRow[];
}

const PROJECT_LIFECYCLE: Record<string, boolean> = {
  'project-created': true,
  'project-revived': true,
  'project-archived': false,
  'project-deleted': false,
};

const num = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) ? Math.trunc(v) : 0);

/**
 * Pure update of the insights' pre-aggregates (semantics §4, §7.5) from newly stored known-type events and
 * the flag transitions flag-state made of them. Everything is additive, a min/max, or keyed by event id;
 * hence the result does not depend on the interleaving of keys.
 *
 * - Flags: each transition turns the flag's state before an event into the state after it (flag-state's
 *   output, not a copy of its rules); the difference of the two contributions is booked on the event's UTC
 *   day. Summing the deltas up to a date gives the counts as of that date.
 * - Projects: one change point per lifecycle event (live = exists and not archived).
 * - Users: creation and deletion times (`user-created` `data.id`, `user-deleted` `preData.id`, else
 *   `data.id`); ids ≤ 0 are system users and are ignored.
 * - Active users: the first and last day each user authored an event (`createdByUserId` > 0) in each week.
 * - Environment updates: events carrying an environment, per UTC day and environment.
 * - Metrics: `client-metrics` `data.bucket.toggles` (yes/no per flag) with `data.appName` and the
 *   environment (`data.environment`, else the event's), per UTC day; toggles with yes = no = 0 count nothing.
 */
export function insightsChanges(
  transitions: readonly FlagTransition[],
  events: readonly FlagEvent[],
): InsightsChanges {
  const flagDeltas = new Map<string, FlagDelta>();
  const projects: ProjectChange[] = [];
  const users = new Map<number, UserChange>();
  const userWeeks = new Map<string, UserWeek>();
  const env = new Map<string, { day: string; environment: string; project: string; n: number }>();
  const metrics = new Map<string, MetricsRow>();
  const utcDay = utcDays();
  const creationDay = utcDays();

  const book = (day: string, r: FlagRow | null, sign: number) => {
    if (!r || r.deleted || r.archivedAt !== null) return;
    const createdDay = creationDay(r.createdAt);
    // both days have a fixed length and the project's is written out: no two quadruples share a key
    const k = `${day}${createdDay}${r.project.length}:${r.project}${r.type}`;
    const d = flagDeltas.get(k) ?? {
      day,
      project: r.project,
      type: r.type,
      createdDay,
      total: 0,
      stale: 0,
      fresh: 0,
    };
    d.total += sign;
    if (r.stale) d.stale += sign;
    else d.fresh += sign;
    flagDeltas.set(k, d);
  };

  for (const t of transitions) {
    const day = utcDay(t.at);
    book(day, t.before, -1);
    book(day, t.after, +1);
  }
  for (const e of events) {
    const day = utcDay(e.createdAt);
    if (e.type in PROJECT_LIFECYCLE && e.project)
      projects.push({ project: e.project, eventId: e.id, at: e.createdAt, live: PROJECT_LIFECYCLE[e.type] });
    if (e.type === 'user-created' || e.type === 'user-deleted') {
      const id = e.type === 'user-created' ? int(data(e).id) : (int(preData(e).id) ?? int(data(e).id));
      if (id !== undefined && id > 0) {
        const u = users.get(id) ?? { id, createdAt: null, deletedAt: null };
        if (e.type === 'user-created') {
          if (u.createdAt === null || e.createdAt < u.createdAt) u.createdAt = e.createdAt;
        } else u.deletedAt = e.createdAt;
        users.set(id, u);
      }
    }
    if (typeof e.createdByUserId === 'number' && e.createdByUserId > 0) {
      const week = weekStart(day);
      const k = `${e.createdByUserId}|${week}`;
      const w = userWeeks.get(k);
      if (!w) userWeeks.set(k, { userId: e.createdByUserId, week, firstDay: day, lastDay: day });
      else {
        if (day < w.firstDay) w.firstDay = day;
        if (day > w.lastDay) w.lastDay = day;
      }
    }
    if (e.environment) {
      // by project too: the report leaves out private projects the caller may not see
      const project = e.project ?? '';
      // the day has a fixed length and the environment's is written out: no two triples share a key
      const k = `${day}${e.environment.length}:${e.environment}${project}`;
      const x = env.get(k) ?? { day, environment: e.environment, project, n: 0 };
      x.n += 1;
      env.set(k, x);
    }
    if (e.type === 'client-metrics') {
      const d = data(e);
      const bucket = d.bucket as Record<string, unknown> | undefined;
      const toggles = bucket && typeof bucket === 'object' ? bucket.toggles : undefined;
      if (toggles && typeof toggles === 'object' && !Array.isArray(toggles)) {
        const app = str(d.appName) ?? '';
        const environment = str(d.environment) ?? e.environment ?? '';
        for (const [feature, v] of Object.entries(toggles as Record<string, unknown>)) {
          const c = v && typeof v === 'object' ? (v as Record<string, unknown>) : {};
          // a zero-count toggle is no usage: the reference drops them before storing (registerClientMetrics),
          // and the source connector's sightings (last_seen_at_metrics) are such reports
          if (num(c.yes) === 0 && num(c.no) === 0) continue;
          const hint = e.project ?? '';
          const k = `${day}${hint.length}:${hint}${feature.length}:${feature}${app.length}:${app}${environment}`;
          const m = metrics.get(k) ?? {
            day,
            projectHint: e.project ?? '',
            feature,
            app,
            environment,
            yes: 0,
            no: 0,
          };
          m.yes += num(c.yes);
          m.no += num(c.no);
          metrics.set(k, m);
        }
      }
    }
  }
  return {
    flagDeltas: [...flagDeltas.values()].filter((d) => d.total !== 0 || d.stale !== 0 || d.fresh !== 0),
    projects,
    users: [...users.values()],
    userWeeks: [...userWeeks.values()],
    envUpdates: [...env.values()],
    metrics: [...metrics.values()],
  };
}

/**
 * The earliest UTC day whose stored weeks (insights.weeks.ts) this batch may change: its earliest event or
 * transition (a week's figures use events dated up to it, and the first event's week), or `-infinity` for a
 * `feature-type-updated` (the current lifetimes apply to every week). Null for an empty batch.
 */
export function earliestInvalidated(
  transitions: readonly FlagTransition[],
  events: readonly FlagEvent[],
): string | null {
  let min: string | null = null;
  const utcDay = utcDays();
  const see = (at: string) => {
    const day = utcDay(at);
    if (min === null || day < min) min = day;
  };
  for (const e of events) {
    if (e.type === 'feature-type-updated') return '-infinity';
    see(e.createdAt);
  }
  for (const t of transitions) see(t.at);
  return min;
}

/** The project a flag's SDK metrics count under (METRICS_SQL): its current one, none once deleted or unknown. */
const metricsProject = (row: FlagRow | null): string | null => (row && !row.deleted ? row.project : null);

/**
 * The flags whose SDK metrics this batch moves to another project (a move, a deletion, a creation or a revival:
 * the metrics of every week count under the flag's current project): the stored weeks from each one's first
 * metrics on are no longer valid. In the order of their first transition, each once.
 */
export function reattributedFlags(transitions: readonly FlagTransition[]): string[] {
  const names = new Set<string>();
  for (const t of transitions) if (metricsProject(t.before) !== metricsProject(t.after)) names.add(t.name);
  return [...names];
}
