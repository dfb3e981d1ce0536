import type { FlagEvent } from '@flaglens/contract';
import { bool, data, str, type Skip } from '../event-fields';
import type { FlagRow, FlagTransition } from '../flag-transitions';

export type { FlagRow, FlagTransition } from '../flag-transitions';

export const FLAG_STATE_TYPES = new Set([
  'feature-created',
  'feature-metadata-updated',
  'feature-project-change',
  'feature-archived',
  'feature-revived',
  'feature-deleted',
  'feature-stale-on',
  'feature-stale-off',
]);

/**
 * Pure update of flag state. All events of one flag share the Kafka key (its name), so they arrive in
 * order; the state of a flag depends only on its own events, which makes the result independent of the
 * interleaving with other keys. `current` holds the stored rows of the flags concerned; the result is
 * the rows to write (changed flags only), and each event's transition (before → after, in event order) for
 * the projections that book changes of flags (insights).
 *
 * Fallbacks (never throw):
 * - an event of a flag that was never created (no `feature-created` seen): skipped, reason `flag never created`;
 * - `feature-created` without a project (neither `project` nor `data.project`): skipped;
 * - `data.type` not a string: `release` on create, unchanged on update; `data.stale` not a boolean: unchanged;
 * - `feature-project-change` without `data.newProject`: the event's `project` (the new project); neither: skipped.
 * - a flag recreated after deletion starts afresh (a new `createdAt`).
 */
export function reduceFlagState(
  current: ReadonlyMap<string, FlagRow>,
  events: readonly FlagEvent[],
): { rows: FlagRow[]; skipped: Skip[]; transitions: FlagTransition[] } {
  const state = new Map(current);
  const changed = new Set<string>();
  const skipped: Skip[] = [];
  const transitions: FlagTransition[] = [];
  for (const e of events) {
    if (!FLAG_STATE_TYPES.has(e.type) || !e.featureName) continue;
    const name = e.featureName;
    const d = data(e);
    const prev = state.get(name);
    if (e.type === 'feature-created') {
      const project = e.project ?? str(d.project);
      if (!project) {
        skipped.push({ eventId: e.id, reason: 'feature-created without a project' });
        continue;
      }
      const created: FlagRow = {
        name,
        project,
        type: str(d.type) ?? 'release',
        stale: bool(d.stale) ?? false,
        createdAt: e.createdAt,
        archivedAt: null,
        deleted: false,
      };
      state.set(name, created);
      changed.add(name);
      transitions.push({ eventId: e.id, at: e.createdAt, name, before: prev ?? null, after: created });
      continue;
    }
    if (!prev || prev.deleted) {
      skipped.push({ eventId: e.id, reason: prev ? 'flag deleted' : 'flag never created' });
      continue;
    }
    const next: FlagRow = { ...prev };
    switch (e.type) {
      case 'feature-metadata-updated':
        next.type = str(d.type) ?? prev.type;
        next.stale = bool(d.stale) ?? prev.stale;
        break;
      case 'feature-project-change': {
        const to = str(d.newProject) ?? e.project;
        if (!to) {
          skipped.push({ eventId: e.id, reason: 'feature-project-change without a new project' });
          continue;
        }
        next.project = to;
        break;
      }
      case 'feature-archived':
        next.archivedAt = e.createdAt;
        break;
      case 'feature-revived':
        next.archivedAt = null;
        break;
      case 'feature-deleted':
        next.deleted = true;
        break;
      case 'feature-stale-on':
        next.stale = true;
        break;
      case 'feature-stale-off':
        next.stale = false;
        break;
    }
    state.set(name, next);
    changed.add(name);
    transitions.push({ eventId: e.id, at: e.createdAt, name, before: prev, after: next });
  }
  return { rows: [...changed].map((n) => state.get(n)!), skipped, transitions };
}
