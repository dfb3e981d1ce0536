import type { FlagEvent } from '@flaglens/contract';
import { data, str } from '../event-fields';
import { DAY_MS as DAY, WEEK_MS as WEEK } from '../time';

/**
 * A flag's lifecycle (Unleash 6.x+ `feature_lifecycles`; semantics: unleash-server
 * `features/feature-lifecycle/feature-lifecycle-service`): the stages it has entered since it was created or
 * last revived, each once, at the first instant it entered it.
 */
export type Stage = 'initial' | 'pre-live' | 'live' | 'completed' | 'archived';

/** Stages in the order a flag normally goes through them: entries at the same instant sort so. */
export const STAGES: readonly Stage[] = ['initial', 'pre-live', 'live', 'completed', 'archived'];

export interface StageEntry {
  stage: Stage;
  /** ISO 8601, UTC */
  enteredAt: string;
}

/** A span in which the flag was enabled in an environment (`to`: disabled at, null while still enabled). */
export interface EnableSpan {
  environment: string;
  from: string;
  to: string | null;
}

/** What a flag's own events say about its lifecycle (table `lifecycle_flags`). */
export interface LifecycleFlagRow {
  name: string;
  /** the flag's `feature-created`, or its latest `feature-revived` (which starts the stages afresh) */
  startedAt: string;
  completedAt: string | null;
  /** `kept` or `discarded`, as the completion said */
  completedStatus: string | null;
  archivedAt: string | null;
  deleted: boolean;
  /**
   * the spans of being enabled still open (`to` null), per environment, in event order; a span closed by a
   * disable leaves the row for `lifecycle_enable_spans` (`ClosedSpan`), so the row stays as small as the
   * flag's environments, however long its history (`stagesOf` takes both)
   */
  enables: EnableSpan[];
}

/** A span of being enabled that a disable closed (table `lifecycle_enable_spans`): `from` < `to`. */
export interface ClosedSpan {
  name: string;
  environment: string;
  from: string;
  to: string;
}

/**
 * The closed spans as they are stored: of each flag and environment, overlapping spans (a flag's events dated
 * out of order: enabled at 10, disabled at 20, enabled at 5, disabled at 15) made one, from the first start to
 * the last end, so the stored spans of a flag and environment never overlap. Spans that only touch stay
 * apart. `stagesOf` gives the same stages for either (a sighting meets the merged span at the instant it meets
 * the first of its parts), and the result does not depend on the spans' order, so a store of it in any order
 * of batches ends the same. Sorted by flag, environment and start.
 */
export function mergeSpans(spans: readonly ClosedSpan[]): ClosedSpan[] {
  const sorted = [...spans].sort(
    (a, b) =>
      (a.name < b.name ? -1 : a.name > b.name ? 1 : 0) ||
      (a.environment < b.environment ? -1 : a.environment > b.environment ? 1 : 0) ||
      ms(a.from) - ms(b.from) ||
      ms(a.to) - ms(b.to),
  );
  const out: ClosedSpan[] = [];
  for (const span of sorted) {
    const last = out.at(-1);
    if (
      last &&
      last.name === span.name &&
      last.environment === span.environment &&
      ms(span.from) < ms(last.to)
    ) {
      if (ms(span.to) > ms(last.to)) out[out.length - 1] = { ...last, to: span.to };
    } else out.push({ ...span });
  }
  return out;
}

/** An SDK reported the flag in an environment at some instant within [first, last] (table `lifecycle_sightings`). */
export interface Sighting {
  featureName: string;
  environment: string;
  first: string;
  last: string;
}

export const LIFECYCLE_FLAG_TYPES = new Set([
  'feature-created',
  'feature-revived',
  'feature-archived',
  'feature-deleted',
  'feature-completed',
  'feature-uncompleted',
  'feature-environment-enabled',
  'feature-environment-disabled',
]);

/**
 * Pure update of the flags' lifecycle rows from their own events (one key each, so in order). Unleash's rules:
 * `feature-created` starts the stages (`initial`); `feature-revived` deletes them and starts again; a stage is
 * entered once (a second `feature-completed` or `feature-archived` keeps the first time and status);
 * `feature-uncompleted` removes `completed`. Enables and disables are kept as spans, since an SDK report in a
 * production environment makes the flag `live` only while it is enabled there (read with the sightings, which
 * come on another key and so in no order with these events). Fallbacks: events of a flag never created are
 * ignored (flag-state counts them as skipped); an enable or disable without an environment is ignored; an
 * enable while enabled and a disable while disabled change nothing; a `feature-deleted` marks the row deleted
 * and a later `feature-created` starts a new one.
 */
export function reduceLifecycleFlags(
  current: ReadonlyMap<string, LifecycleFlagRow>,
  events: readonly FlagEvent[],
): {
  rows: LifecycleFlagRow[];
  /** the spans the events closed, of each flag since its latest `feature-created` among them */
  closed: ClosedSpan[];
  /** the flags a `feature-created` started afresh: their closed spans stored before go */
  reset: string[];
} {
  const state = new Map(current);
  const changed = new Set<string>();
  const closed = new Map<string, ClosedSpan[]>();
  const reset = new Set<string>();
  for (const e of events) {
    if (!LIFECYCLE_FLAG_TYPES.has(e.type) || !e.featureName) continue;
    const name = e.featureName;
    const at = isoOr(e.createdAt, e.createdAt);
    const prev = state.get(name);
    let next: LifecycleFlagRow | undefined;
    if (e.type === 'feature-created') {
      next = {
        name,
        startedAt: at,
        completedAt: null,
        completedStatus: null,
        archivedAt: null,
        deleted: false,
        enables: [],
      };
      reset.add(name);
      closed.delete(name);
    } else if (!prev || prev.deleted) {
      continue;
    } else if (e.type === 'feature-revived') {
      next = { ...prev, startedAt: at, completedAt: null, completedStatus: null, archivedAt: null };
    } else if (e.type === 'feature-archived') {
      if (prev.archivedAt !== null) continue;
      next = { ...prev, archivedAt: at };
    } else if (e.type === 'feature-deleted') {
      next = { ...prev, deleted: true };
    } else if (e.type === 'feature-completed') {
      if (prev.completedAt !== null) continue;
      next = { ...prev, completedAt: at, completedStatus: str(data(e).status) ?? null };
    } else if (e.type === 'feature-uncompleted') {
      if (prev.completedAt === null) continue;
      next = { ...prev, completedAt: null, completedStatus: null };
    } else {
      const env = e.environment;
      if (!env) continue;
      const open = prev.enables.findIndex((s) => s.environment === env && s.to === null);
      if (e.type === 'feature-environment-enabled') {
        if (open >= 0) continue;
        next = { ...prev, enables: [...prev.enables, { environment: env, from: at, to: null }] };
      } else {
        if (open < 0) continue;
        const span = prev.enables[open];
        next = { ...prev, enables: prev.enables.filter((_, i) => i !== open) };
        // a span of no length (disabled at or before the instant it was enabled) can make no flag live
        if (ms(at) > ms(span.from)) {
          const list = closed.get(name) ?? [];
          list.push({ name, environment: env, from: span.from, to: at });
          closed.set(name, list);
        }
      }
    }
    state.set(name, next);
    changed.add(name);
  }
  const names = [...changed].sort();
  return {
    rows: names.map((n) => state.get(n)!),
    closed: names.flatMap((n) => closed.get(n) ?? []),
    reset: [...reset].sort(),
  };
}

const isoOr = (v: unknown, fallback: string): string => {
  if (typeof v !== 'string') return fallback;
  const t = Date.parse(v);
  return Number.isNaN(t) ? fallback : new Date(t).toISOString();
};

const sightingKey = (flag: string, env: string) => `${flag}\u0000${env}`;

/**
 * SDK reports as sightings (order-independent: earliest `first`, latest `last` per flag and environment). A
 * `client-metrics` report names the flags it counted in `data.bucket.toggles` (zero counts too: the flag was
 * evaluated), in `data.environment` (else the event's, else `default`, as Unleash files a report without
 * one); it saw them within its bucket, [`bucket.start`, `bucket.stop`] (else the event's time). A report
 * without toggles is ignored (sdk-usage counts it as skipped).
 */
export function sightingsOf(events: readonly FlagEvent[]): Map<string, Sighting> {
  const out = new Map<string, Sighting>();
  for (const e of events) {
    if (e.type !== 'client-metrics') continue;
    const d = data(e);
    const bucket = d.bucket as Record<string, unknown> | undefined;
    const toggles = bucket && typeof bucket === 'object' ? bucket.toggles : undefined;
    if (!toggles || typeof toggles !== 'object' || Array.isArray(toggles)) continue;
    const environment = str(d.environment) ?? e.environment ?? 'default';
    let first = isoOr(bucket!.start, e.createdAt);
    let last = isoOr(bucket!.stop, e.createdAt);
    if (last < first) [first, last] = [last, first];
    for (const featureName of Object.keys(toggles)) {
      const k = sightingKey(featureName, environment);
      const p = out.get(k);
      out.set(
        k,
        p
          ? {
              featureName,
              environment,
              first: p.first < first ? p.first : first,
              last: p.last > last ? p.last : last,
            }
          : { featureName, environment, first, last },
      );
    }
  }
  return out;
}

/** Merges sightings into `into` (earliest first, latest last): what the upsert of the projection does. */
export function mergeSightings(into: Map<string, Sighting>, from: ReadonlyMap<string, Sighting>): void {
  for (const [k, s] of from) {
    const p = into.get(k);
    into.set(
      k,
      p ? { ...p, first: p.first < s.first ? p.first : s.first, last: p.last > s.last ? p.last : s.last } : s,
    );
  }
}

const ms = (iso: string) => Date.parse(iso);
const later = (a: string, b: string) => (ms(a) > ms(b) ? a : b);
const iso = (t: number) => new Date(t).toISOString();

/**
 * The stages a flag has entered since it started, sorted by time (same instant: in `STAGES` order), from its
 * row, its sightings and the environments as they are now (name → type; deleted ones absent):
 * - `initial` when it started;
 * - `pre-live` at the earliest instant, from its start on, of a sighting in an existing environment;
 * - `live` at the earliest instant, from its start on, of a sighting in an environment of type `production`
 *   while the flag was enabled there;
 * - `completed` and `archived` when their events said.
 * A sighting is a span (a report's bucket, or the first to the last report): it counts from the later of its
 * first instant and the flag's start (or the enable) as long as it reaches that instant. Unleash files the
 * stage when a report arrives, checking the flag's state then; a sighting here is not ordered with the flag's
 * events, so the spans stand in for the reports (docs/deviations.md).
 * `flag.enables` are the spans to consider, open and closed: every one, or (as the read model passes them) the
 * open ones and, per environment with a sighting, the closed one that sighting meets first
 * (`LIFECYCLE_LIVE_SPAN_SQL`): one sighting per environment, so the other closed spans change nothing.
 */
export function stagesOf(
  flag: LifecycleFlagRow,
  sightings: readonly Sighting[],
  environmentTypes: ReadonlyMap<string, string>,
): StageEntry[] {
  const start = flag.startedAt;
  const out: StageEntry[] = [{ stage: 'initial', enteredAt: start }];
  let preLive: string | null = null;
  let live: string | null = null;
  for (const s of sightings) {
    const type = environmentTypes.get(s.environment);
    if (type === undefined || ms(s.last) < ms(start)) continue;
    const from = later(s.first, start);
    if (preLive === null || ms(from) < ms(preLive)) preLive = from;
    if (type !== 'production') continue;
    for (const span of flag.enables) {
      if (span.environment !== s.environment) continue;
      const lo = later(from, span.from);
      if (ms(lo) > ms(s.last) || (span.to !== null && ms(lo) >= ms(span.to))) continue;
      if (live === null || ms(lo) < ms(live)) live = lo;
    }
  }
  if (preLive !== null) out.push({ stage: 'pre-live', enteredAt: iso(ms(preLive)) });
  if (live !== null) out.push({ stage: 'live', enteredAt: iso(ms(live)) });
  if (flag.completedAt !== null) out.push({ stage: 'completed', enteredAt: flag.completedAt });
  if (flag.archivedAt !== null) out.push({ stage: 'archived', enteredAt: flag.archivedAt });
  return out.sort(
    (a, b) => ms(a.enteredAt) - ms(b.enteredAt) || STAGES.indexOf(a.stage) - STAGES.indexOf(b.stage),
  );
}

/** The flag's current stage: the one entered last (as Unleash's stage count reads it). */
export const currentStage = (entries: readonly StageEntry[]): StageEntry => entries[entries.length - 1];

/** The summary's flag categories (the UI: "Experimental", "Release", "Other flags"). */
export type Category = 'experimental' | 'permanent' | 'release';
export const categoryOf = (type: string): Category =>
  type === 'experiment' ? 'experimental' : type === 'release' ? 'release' : 'permanent';

/** The summary's stages and the lifecycle stage each shows (the UI's `develop`/`production`/`cleanup`). */
export const SUMMARY_STAGES = { develop: 'pre-live', production: 'live', cleanup: 'completed' } as const;
type SummaryStage = keyof typeof SUMMARY_STAGES;

export interface CategoryCounts {
  flagsOlderThanWeek: number;
  newFlagsThisWeek: number;
}
export interface StageSummary {
  categories: Record<Category, CategoryCounts>;
  medianDaysHistorically: number;
  medianDaysInCurrentStage: number;
  totalFlags: number;
}
export interface LifecycleSummary {
  lifecycleTrends: Record<SummaryStage, StageSummary>;
}

/** A flag as the summary reads it: its type, whether it is archived, its stages. */
export interface SummaryFlag {
  type: string;
  archived: boolean;
  stages: readonly StageEntry[];
}

/** The median of numbers (the mean of the middle two for an even count); none → null. */
export function median(xs: readonly number[]): number | null {
  if (xs.length === 0) return null;
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 === 0 ? (s[mid - 1] + s[mid]) / 2 : s[mid];
}

/**
 * Days to one decimal, as the figures are given: none → 0 (the UI shows "No data"), a positive value that
 * rounds to 0 → 0.1 (the UI shows "<1 day"), as average time to production.
 */
export function daysFigure(msValue: number | null): number {
  if (msValue === null) return 0;
  const rounded = Number((Math.max(0, msValue) / DAY).toFixed(1));
  return rounded === 0 && msValue > 0 ? 0.1 : rounded;
}

/**
 * The lifecycle summary of `GET /api/admin/insights/lifecycle` (Unleash 8.x Enterprise) as of `now`, and the
 * instant until which it stays the same (none: until the flags change):
 * - each summary stage counts the flags, not archived, whose current stage is its lifecycle stage, by
 *   category; `newFlagsThisWeek` those that entered it within the last 7 days (after now − 7 d),
 *   `flagsOlderThanWeek` the others; `totalFlags` their sum;
 * - `medianDaysInCurrentStage`: the median time those flags have been in it, in days;
 * - `medianDaysHistorically`: the median time flags (archived ones too) spent in it before entering a later
 *   stage (Unleash's project lifecycle summary measures a stage the same way: up to the next stage entered).
 */
export function lifecycleSummary(
  flags: readonly SummaryFlag[],
  now: Date,
): { body: LifecycleSummary; validUntil: number | null } {
  const t = now.getTime();
  const current = new Map<Stage, { entered: number; category: Category }[]>();
  const finished = new Map<Stage, number[]>();
  for (const f of flags) {
    for (let i = 0; i < f.stages.length; i++) {
      const entered = ms(f.stages[i].enteredAt);
      const next = f.stages.slice(i + 1).find((x) => ms(x.enteredAt) > entered);
      if (!next) continue;
      const list = finished.get(f.stages[i].stage) ?? [];
      list.push(ms(next.enteredAt) - entered);
      finished.set(f.stages[i].stage, list);
    }
    if (f.archived || f.stages.length === 0) continue;
    const at = currentStage(f.stages);
    const list = current.get(at.stage) ?? [];
    list.push({ entered: ms(at.enteredAt), category: categoryOf(f.type) });
    current.set(at.stage, list);
  }
  let validUntil: number | null = null;
  const until = (at: number) => {
    if (at > t && (validUntil === null || at < validUntil)) validUntil = at;
  };
  const summary = (stage: Stage): StageSummary => {
    const inStage = current.get(stage) ?? [];
    const categories: Record<Category, CategoryCounts> = {
      experimental: { flagsOlderThanWeek: 0, newFlagsThisWeek: 0 },
      permanent: { flagsOlderThanWeek: 0, newFlagsThisWeek: 0 },
      release: { flagsOlderThanWeek: 0, newFlagsThisWeek: 0 },
    };
    let future = false;
    for (const f of inStage) {
      if (f.entered > t - WEEK) categories[f.category].newFlagsThisWeek++;
      else categories[f.category].flagsOlderThanWeek++;
      until(f.entered + WEEK);
      if (f.entered > t) {
        future = true;
        until(f.entered);
      }
    }
    const inCurrent = median(inStage.map((f) => Math.max(0, t - f.entered)));
    if (inCurrent !== null && !future) {
      // every flag's time in the stage grows with the clock, and so does their median: the figure changes
      // when it crosses the next rounding edge (x.x5 days); a second early, against float rounding
      const edge = (Math.floor((inCurrent / DAY - 0.05) / 0.1) + 1) * 0.1 + 0.05;
      until(Math.max(t + 1, t + Math.floor(edge * DAY - inCurrent) - 1000));
    }
    return {
      categories,
      medianDaysHistorically: daysFigure(median(finished.get(stage) ?? [])),
      medianDaysInCurrentStage: daysFigure(inCurrent),
      totalFlags: inStage.length,
    };
  };
  const body: LifecycleSummary = {
    lifecycleTrends: {
      develop: summary(SUMMARY_STAGES.develop),
      production: summary(SUMMARY_STAGES.production),
      cleanup: summary(SUMMARY_STAGES.cleanup),
    },
  };
  return { body, validUntil };
}
