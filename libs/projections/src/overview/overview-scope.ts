import type { PoolClient } from 'pg';
import type { FlagEvent } from '@flaglens/contract';
import { ENVIRONMENT_TYPES } from '../environments/environments.logic';
import { data, preData, str } from '../shared';

/**
 * Which projects' overviews a batch may change, for the change feed (`Changes.projects`). Conservative: a
 * project is named whenever any projection the overview reads may have changed a row of it, and `'*'` is
 * returned when the reach of an event is not bounded by the projects it names.
 */
interface Scope {
  global: boolean;
  projects: Set<string>;
  flags: Set<string>;
}

/** Types whose effect on overviews spans projects: environments, feature types, users, roles, groups. */
const isGlobalType = (type: string): boolean =>
  ENVIRONMENT_TYPES.has(type) ||
  type === 'feature-type-updated' ||
  type.startsWith('user-') ||
  type.startsWith('role-') ||
  type.startsWith('group-');

const PROJECT_KEYS = ['project', 'projectId', 'id', 'newProject', 'oldProject'];

export function overviewScope(events: readonly FlagEvent[]): Scope {
  const scope: Scope = { global: false, projects: new Set(), flags: new Set() };
  for (const e of events) {
    if (isGlobalType(e.type)) {
      scope.global = true;
      break;
    }
    const before = scope.projects.size + scope.flags.size;
    if (e.project) scope.projects.add(e.project);
    for (const o of [data(e), preData(e)])
      for (const k of PROJECT_KEYS) {
        const v = str(o[k]);
        if (v) scope.projects.add(v);
      }
    if (e.featureName) scope.flags.add(e.featureName);
    if (e.type === 'client-metrics') {
      // SDK usage marks the flags named in the report (sdk-usage.logic.ts): their projects are onboarded
      const bucket = data(e).bucket as { toggles?: unknown } | undefined;
      const toggles = bucket && typeof bucket === 'object' ? bucket.toggles : undefined;
      if (toggles && typeof toggles === 'object' && !Array.isArray(toggles))
        for (const name of Object.keys(toggles)) scope.flags.add(name);
    }
    // an event naming neither a project nor a flag: its reach is unknown
    if (scope.projects.size + scope.flags.size === before && !e.project && !e.featureName) {
      scope.global = true;
      break;
    }
  }
  return scope;
}

/**
 * Runs `apply` (the projections of a batch, after the event log append) and answers the projects whose
 * overview it may have changed: the projects the events name, and the projects of the flags they name both
 * before and after the batch (a flag can move). `'*'` when the batch holds the instance's earliest event
 * (a seeded project's `createdAt` is that event's time) or an event of instance-wide reach.
 */
export async function withOverviewScope(
  c: PoolClient,
  events: readonly FlagEvent[],
  apply: () => Promise<void>,
): Promise<string[] | '*'> {
  const scope = overviewScope(events);
  if (scope.global) {
    await apply();
    return '*';
  }
  const flags = [...scope.flags];
  const flagProjects = async () => {
    if (flags.length === 0) return;
    const r = await c.query<{ project: string }>(
      'SELECT DISTINCT project FROM flag_state WHERE name = ANY($1::text[])',
      [flags],
    );
    for (const row of r.rows) scope.projects.add(row.project);
  };
  // only these can move a flag to another project (flag-state.logic.ts): otherwise before = after
  if (events.some((e) => e.type === 'feature-created' || e.type === 'feature-project-change'))
    await flagProjects();
  await apply();
  await flagProjects();
  let earliest = events[0]?.createdAt;
  for (const e of events) if (e.createdAt < earliest) earliest = e.createdAt;
  if (earliest !== undefined) {
    const r = await c.query<{ first: boolean }>(
      'SELECT $1::timestamptz <= (SELECT min(created_at) FROM event_log) AS first',
      [earliest],
    );
    if (r.rows[0]?.first !== false) return '*';
  }
  return [...scope.projects];
}
