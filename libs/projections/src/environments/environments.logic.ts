import type { FlagEvent } from '@flaglens/contract';
import { bool, data, preData, str, type Skip, int32 } from '../event-fields';

/** One environment of the instance (table `environments`). */
export interface EnvironmentRow {
  name: string;
  type: string;
  sortOrder: number;
  enabled: boolean;
  deleted: boolean;
  /** When it was created (event time); null for the seeded ones (they exist from the start). */
  createdAt: string | null;
}

export const ENVIRONMENT_TYPES = new Set([
  'environment-created',
  'environment-import',
  'environment-updated',
  'environment-deleted',
]);

/**
 * Pure update of the environment catalogue. Environment events carry no flag or project, so they share the
 * key `instance` and arrive in order. Payload (semantics §5.5): `data: {name, type, sortOrder, enabled}`.
 * Fallbacks: name from `data.name`, else the event's `environment`, else skipped; a missing or wrong-typed
 * field keeps its previous value (on create: type `development`, sortOrder 9999, enabled true).
 * `environment-deleted` marks the row deleted (its project links then drop out at read time).
 */
export function reduceEnvironments(
  current: ReadonlyMap<string, EnvironmentRow>,
  events: readonly FlagEvent[],
): { rows: EnvironmentRow[]; skipped: Skip[] } {
  const state = new Map(current);
  const changed = new Set<string>();
  const skipped: Skip[] = [];
  for (const e of events) {
    if (!ENVIRONMENT_TYPES.has(e.type)) continue;
    const d = e.type === 'environment-deleted' && !e.data ? preData(e) : data(e);
    const name = str(d.name) ?? e.environment;
    if (!name) {
      skipped.push({ eventId: e.id, reason: `${e.type} without an environment name` });
      continue;
    }
    const prev = state.get(name);
    if (e.type === 'environment-deleted') {
      if (prev) state.set(name, { ...prev, deleted: true });
      else skipped.push({ eventId: e.id, reason: 'unknown environment' });
      changed.add(name);
      continue;
    }
    const recreate = !prev || prev.deleted;
    state.set(name, {
      name,
      type: str(d.type) ?? prev?.type ?? 'development',
      sortOrder: int32(d.sortOrder) ?? prev?.sortOrder ?? 9999,
      enabled: bool(d.enabled) ?? prev?.enabled ?? true,
      deleted: false,
      createdAt: recreate ? e.createdAt : prev.createdAt,
    });
    changed.add(name);
  }
  return { rows: [...changed].filter((n) => state.has(n)).map((n) => state.get(n)!), skipped };
}
