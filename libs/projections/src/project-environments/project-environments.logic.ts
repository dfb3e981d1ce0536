import type { FlagEvent } from '@flaglens/contract';
import { data, type Skip } from '../event-fields';

/**
 * One (project, environment) row. `linked`: true (linked by project-created's list or
 * project-environment-added), false (project-environment-removed), null (no explicit link: the row only
 * carries a default strategy; the project's `linkEnabledEnvs` then decides at read time).
 */
export interface ProjectEnvRow {
  project: string;
  environment: string;
  linked: boolean | null;
  /** The default strategy exactly as sent (`data` of default-strategy-updated), or null. */
  defaultStrategy: unknown;
}

export const PROJECT_ENV_TYPES = new Set([
  'project-created',
  'project-deleted',
  'project-environment-added',
  'project-environment-removed',
  'default-strategy-updated',
]);

/**
 * Pure update of project ↔ environment links from the project's events (key = project: in order).
 * Input: the stored rows of the projects concerned; output: the complete new row set of each touched project.
 * Fallbacks: an event without `environment` (or project-created's `data.environments` not an array of
 * strings: its non-strings are ignored) → skipped; links to environments that do not exist are kept and drop
 * out at read time (inner join with the live environments).
 */
export function reduceProjectEnvs(
  current: readonly ProjectEnvRow[],
  events: readonly FlagEvent[],
): { projects: Map<string, ProjectEnvRow[]>; skipped: Skip[] } {
  const byProject = new Map<string, Map<string, ProjectEnvRow>>();
  const get = (p: string) => {
    let m = byProject.get(p);
    if (!m) byProject.set(p, (m = new Map()));
    return m;
  };
  for (const r of current) get(r.project).set(r.environment, r);
  const touched = new Set<string>();
  const skipped: Skip[] = [];
  for (const e of events) {
    if (!PROJECT_ENV_TYPES.has(e.type)) continue;
    const p = e.project;
    if (!p) {
      skipped.push({ eventId: e.id, reason: `${e.type} without a project` });
      continue;
    }
    const rows = get(p);
    touched.add(p);
    if (e.type === 'project-created' || e.type === 'project-deleted') {
      rows.clear();
      const envs = data(e).environments;
      if (e.type === 'project-created' && Array.isArray(envs)) {
        for (const env of envs)
          if (typeof env === 'string')
            rows.set(env, { project: p, environment: env, linked: true, defaultStrategy: null });
      }
      continue;
    }
    const env = e.environment;
    if (!env) {
      skipped.push({ eventId: e.id, reason: `${e.type} without an environment` });
      continue;
    }
    const prev = rows.get(env) ?? { project: p, environment: env, linked: null, defaultStrategy: null };
    if (e.type === 'project-environment-added') rows.set(env, { ...prev, linked: true });
    else if (e.type === 'project-environment-removed')
      rows.set(env, { ...prev, linked: false, defaultStrategy: null });
    else rows.set(env, { ...prev, defaultStrategy: e.data ?? null });
  }
  const projects = new Map<string, ProjectEnvRow[]>();
  for (const p of touched) projects.set(p, [...byProject.get(p)!.values()]);
  return { projects, skipped };
}
