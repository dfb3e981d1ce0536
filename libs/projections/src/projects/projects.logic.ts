import type { FlagEvent } from '@flaglens/contract';
import { data, str, type Skip, int32 } from '../event-fields';

/** Settings and lifecycle of one project (table `projects`). */
export interface ProjectRow {
  id: string;
  /** false for a placeholder (events name the project, but no project-created yet) or a deleted project. */
  exists: boolean;
  name: string | null;
  description: string | null;
  mode: string;
  defaultStickiness: string;
  featureLimit: number | null;
  namingPattern: string | null;
  namingExample: string | null;
  namingDescription: string | null;
  createdAt: string | null;
  archivedAt: string | null;
  /** project-created named no environments: linked to every environment enabled when it was created. */
  linkEnabledEnvs: boolean;
  /** Link templates of new flags (Unleash 7+), as the last project-updated carrying them gave them. */
  linkTemplates: LinkTemplate[];
}

/** A project's link template (Unleash 7+ `projectLinkTemplateSchema`). */
export interface LinkTemplate {
  title?: string | null;
  urlTemplate: string;
}

export const PROJECT_SETTING_TYPES = new Set([
  'project-created',
  'project-updated',
  'project-archived',
  'project-revived',
  'project-deleted',
]);

export const placeholderProject = (id: string): ProjectRow => ({
  id,
  exists: false,
  name: null,
  description: null,
  mode: 'open',
  defaultStickiness: 'default',
  featureLimit: null,
  namingPattern: null,
  namingExample: null,
  namingDescription: null,
  createdAt: null,
  archivedAt: null,
  linkEnabledEnvs: false,
  linkTemplates: [],
});

const nullableStr = (v: unknown, prev: string | null): string | null =>
  v === null ? null : (str(v) ?? prev);

/**
 * `data.linkTemplates` (Unleash 7+: the project's `link_templates` setting, in every project-updated's `data`):
 * the templates with a string `urlTemplate`, each as `{title?, urlTemplate}` (a title that is not a string or
 * null is left out); not an array (older releases, a wrong shape): null, the previous value stays.
 */
export function linkTemplatesOf(v: unknown): LinkTemplate[] | null {
  if (!Array.isArray(v)) return null;
  const out: LinkTemplate[] = [];
  for (const t of v) {
    if (!t || typeof t !== 'object') continue;
    const { title, urlTemplate } = t as Record<string, unknown>;
    if (typeof urlTemplate !== 'string') continue;
    out.push(typeof title === 'string' || title === null ? { title, urlTemplate } : { urlTemplate });
  }
  return out;
}

function applySettings(row: ProjectRow, d: Record<string, unknown>): ProjectRow {
  const naming =
    d.featureNaming && typeof d.featureNaming === 'object'
      ? (d.featureNaming as Record<string, unknown>)
      : {};
  return {
    ...row,
    name: str(d.name) ?? row.name,
    description: 'description' in d ? nullableStr(d.description, row.description) : row.description,
    mode: str(d.mode) ?? row.mode,
    defaultStickiness: str(d.defaultStickiness) ?? row.defaultStickiness,
    featureLimit:
      'featureLimit' in d
        ? d.featureLimit === null
          ? null
          : (int32(d.featureLimit) ?? row.featureLimit)
        : row.featureLimit,
    namingPattern: 'pattern' in naming ? nullableStr(naming.pattern, row.namingPattern) : row.namingPattern,
    namingExample: 'example' in naming ? nullableStr(naming.example, row.namingExample) : row.namingExample,
    namingDescription:
      'description' in naming
        ? nullableStr(naming.description, row.namingDescription)
        : row.namingDescription,
    linkTemplates: linkTemplatesOf(d.linkTemplates) ?? row.linkTemplates,
  };
}

/**
 * Pure update of project settings from the project's own events (key = project id, so in order).
 * Semantics §5.2 / §7.1: project-created (name, description, mode ?? open, defaultStickiness ?? default,
 * featureLimit ?? null, featureNaming when present), project-updated (each listed field of `data`, and
 * `linkTemplates` when it is an array: 7+ write the stored templates into every project-updated),
 * project-archived/-revived (archivedAt), project-deleted (the project no longer exists; a later
 * project-created starts afresh).
 * Fallbacks: a field of the wrong type keeps its previous value (name falls back to the id on create);
 * project-updated/-archived/-revived of a project that does not exist: skipped (`project not found`);
 * an event without `project` is skipped, even when `data.id` names one: it is keyed `instance`, so it has
 * no order with the project's own events and its result would depend on the interleaving (the reference
 * always writes `project` on these events).
 */
export function reduceProjects(
  current: ReadonlyMap<string, ProjectRow>,
  events: readonly FlagEvent[],
): { rows: ProjectRow[]; skipped: Skip[] } {
  const state = new Map(current);
  const changed = new Set<string>();
  const skipped: Skip[] = [];
  for (const e of events) {
    if (!PROJECT_SETTING_TYPES.has(e.type)) continue;
    const d = data(e);
    const id = e.project;
    if (!id) {
      skipped.push({ eventId: e.id, reason: `${e.type} without a project` });
      continue;
    }
    const prev = state.get(id) ?? placeholderProject(id);
    let next: ProjectRow;
    if (e.type === 'project-created') {
      next = applySettings(
        { ...placeholderProject(id), exists: true, name: id, createdAt: e.createdAt },
        { ...d, mode: str(d.mode) ?? 'open', defaultStickiness: str(d.defaultStickiness) ?? 'default' },
      );
      next.linkEnabledEnvs = !Array.isArray(d.environments);
      // the reference's project creation stores no link templates (only a later settings update does)
      next.linkTemplates = [];
    } else if (!prev.exists) {
      skipped.push({ eventId: e.id, reason: 'project not found' });
      continue;
    } else if (e.type === 'project-updated') {
      next = applySettings(prev, d);
    } else if (e.type === 'project-archived') {
      next = { ...prev, archivedAt: e.createdAt };
    } else if (e.type === 'project-revived') {
      next = { ...prev, archivedAt: null };
    } else {
      next = { ...prev, exists: false };
    }
    state.set(id, next);
    changed.add(id);
  }
  return { rows: [...changed].map((id) => state.get(id)!), skipped };
}

/** The latest event time per project named by the events (for `updatedAt`). Order-independent (max). */
export function latestEventPerProject(events: readonly FlagEvent[]): Map<string, string> {
  const out = new Map<string, string>();
  for (const e of events) {
    if (!e.project) continue;
    const prev = out.get(e.project);
    if (!prev || e.createdAt > prev) out.set(e.project, e.createdAt);
  }
  return out;
}

/** The projects a `feature-environment-enabled` event of the batch names (`projects.flag_enabled`). */
export function projectsWithEnable(events: readonly FlagEvent[]): Set<string> {
  const out = new Set<string>();
  for (const e of events) if (e.project && e.type === 'feature-environment-enabled') out.add(e.project);
  return out;
}
