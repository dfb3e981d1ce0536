import type { FlagEvent } from '@flaglens/contract';
import { data, preData, str } from '../event-fields';
import type { Stage, StageEntry } from '../lifecycle/lifecycle.logic';
import { DAY_MS } from '../time';

/**
 * Unleash 8.2.0's project status (`GET /api/admin/projects/{projectId}/status`), the parts computed in Node from
 * events and stages. Pure. The rules, field by field, are in docs/deviations.md ("Project status").
 */

/** Unleash's live health: the share of non-archived flags neither stale nor potentially stale, rounded. */
export function statusHealth(total: number, stale: number, potentiallyStale: number): number {
  return Math.round(100 - ((stale / total) * 100 || 0) - ((potentiallyStale / total) * 100 || 0));
}

/** A token as its creation names it (v1 tokens carry no secret: Unleash's own columns identify it). */
const tokenKey = (d: Record<string, unknown>): string | null => {
  const projects = Array.isArray(d.projects) ? d.projects.filter((p) => typeof p === 'string').sort() : null;
  if (projects === null) return null;
  return JSON.stringify([str(d.tokenName), str(d.createdAt), str(d.type), str(d.environment), projects]);
};

/**
 * The API tokens that name `project` (their `projects` list, never `*`), as `api_token_project` holds them: each
 * `api-token-created` (but the new tokens of `tokenVersion` 2, kept apart and not counted) until its
 * `api-token-deleted` (matched by name, creation time, type, environment and projects), or until the project is
 * deleted (its rows cascade). `events`: those types and `project-deleted`, in the log's order.
 */
export function projectTokens(events: readonly FlagEvent[], project: string): number {
  const live = new Map<string, number>();
  for (const e of events) {
    if (e.type === 'project-deleted') {
      if ((str(data(e).id) ?? e.project) === project) live.clear();
      continue;
    }
    const d = e.type === 'api-token-deleted' ? (e.preData ? preData(e) : data(e)) : data(e);
    const key = tokenKey(d);
    if (key === null || !(d.projects as unknown[]).includes(project)) continue;
    if (e.type === 'api-token-created') {
      if (d.tokenVersion === 2) continue;
      live.set(key, (live.get(key) ?? 0) + 1);
    } else if (e.type === 'api-token-deleted') {
      const n = live.get(key) ?? 0;
      if (n <= 1) live.delete(key);
      else live.set(key, n - 1);
    }
  }
  let n = 0;
  for (const v of live.values()) n += v;
  return n;
}

/**
 * The segments of `project` (`segment_project_id`): each segment by its id, in the project its latest
 * `segment-created` or `segment-updated` names (`data.project`; none: a global segment), until its
 * `segment-deleted` or its project's deletion. `events`: those types and `project-deleted`, in order.
 */
export function projectSegments(events: readonly FlagEvent[], project: string): number {
  const projectOf = new Map<string, string | null>();
  for (const e of events) {
    if (e.type === 'project-deleted') {
      const gone = str(data(e).id) ?? e.project;
      for (const [id, p] of projectOf) if (p === gone) projectOf.delete(id);
      continue;
    }
    const d = e.type === 'segment-deleted' ? preData(e) : data(e);
    const id = typeof d.id === 'number' || typeof d.id === 'string' ? String(d.id) : null;
    if (id === null) continue;
    if (e.type === 'segment-deleted') projectOf.delete(id);
    else projectOf.set(id, str(d.project) ?? null);
  }
  let n = 0;
  for (const p of projectOf.values()) if (p === project) n++;
  return n;
}

export interface StatusStageSummary {
  averageDays: number | null;
  currentFlags: number;
}

export interface ProjectLifecycleSummary {
  initial: StatusStageSummary;
  preLive: StatusStageSummary;
  live: StatusStageSummary;
  completed: StatusStageSummary;
  archived: { currentFlags: number; last30Days: number };
}

/** A flag of the project (its current one), archived or not, with its lifecycle stages oldest first. */
export interface StatusFlag {
  archivedAt: string | null;
  stages: readonly StageEntry[];
}

const KEYS: Record<Exclude<Stage, 'archived'>, 'initial' | 'preLive' | 'live' | 'completed'> = {
  initial: 'initial',
  'pre-live': 'preLive',
  live: 'live',
  completed: 'completed',
};

/** Postgres's ROUND of a numeric: half away from zero. */
const roundHalfAway = (x: number): number => Math.sign(x) * Math.round(Math.abs(x));

/**
 * The lifecycle summary of a project's flags as Unleash 8.2.0's project status reads its lifecycle rows:
 * - `averageDays` per stage: over every flag (archived ones too), each stage but `archived` that a later stage
 *   followed, the days until the first stage entered after it, averaged and rounded; none: null;
 * - `currentFlags`: the flags not archived, by the stage entered last (`archived` as `initial`: a revived flag);
 * - `archived`: the archived flags, and those archived in the 30 days before `now`.
 */
export function projectLifecycleSummary(flags: readonly StatusFlag[], now: Date): ProjectLifecycleSummary {
  const sums = { initial: [0, 0], preLive: [0, 0], live: [0, 0], completed: [0, 0] } as Record<
    'initial' | 'preLive' | 'live' | 'completed',
    [number, number]
  >;
  const current = { initial: 0, preLive: 0, live: 0, completed: 0 };
  let archived = 0;
  let archivedLately = 0;
  const since = now.getTime() - 30 * DAY_MS;
  for (const f of flags) {
    const stages = [...f.stages].sort((a, b) => Date.parse(a.enteredAt) - Date.parse(b.enteredAt));
    for (const s of stages) {
      if (s.stage === 'archived') continue;
      const at = Date.parse(s.enteredAt);
      const next = stages.find((o) => Date.parse(o.enteredAt) > at);
      if (!next) continue;
      const acc = sums[KEYS[s.stage]];
      acc[0] += (Date.parse(next.enteredAt) - at) / DAY_MS;
      acc[1]++;
    }
    if (f.archivedAt !== null) {
      archived++;
      if (Date.parse(f.archivedAt) >= since) archivedLately++;
      continue;
    }
    const last = stages[stages.length - 1];
    if (last) current[last.stage === 'archived' ? 'initial' : KEYS[last.stage]]++;
  }
  const stage = (k: 'initial' | 'preLive' | 'live' | 'completed'): StatusStageSummary => ({
    averageDays: sums[k][1] === 0 ? null : roundHalfAway(sums[k][0] / sums[k][1]),
    currentFlags: current[k],
  });
  return {
    initial: stage('initial'),
    preLive: stage('preLive'),
    live: stage('live'),
    completed: stage('completed'),
    archived: { currentFlags: archived, last30Days: archivedLately },
  };
}
