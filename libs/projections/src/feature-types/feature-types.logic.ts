import type { FlagEvent } from '@flaglens/contract';
import { data, str, type Skip, int32 } from '../event-fields';

/**
 * Pure update of feature-type lifetimes from `feature-type-updated` (`data: {id, lifetimeDays}`, semantics
 * §5.1; key `instance`, so in order). 0 or null means "no lifetime" (stored as null). Returns the final
 * lifetime per type id touched. Fallback: no string `data.id` → skipped; `lifetimeDays` neither an integer
 * nor null → skipped.
 */
export function reduceFeatureTypes(events: readonly FlagEvent[]): {
  lifetimes: Map<string, number | null>;
  skipped: Skip[];
} {
  const lifetimes = new Map<string, number | null>();
  const skipped: Skip[] = [];
  for (const e of events) {
    if (e.type !== 'feature-type-updated') continue;
    const d = data(e);
    const id = str(d.id);
    const days = d.lifetimeDays === null ? null : int32(d.lifetimeDays);
    if (!id || days === undefined || (days !== null && days < 0)) {
      skipped.push({ eventId: e.id, reason: 'feature-type-updated without data.id or a valid lifetimeDays' });
      continue;
    }
    lifetimes.set(id, days === 0 ? null : days);
  }
  return { lifetimes, skipped };
}

/** A feature type's lifetime (table `feature_types`): null, no lifetime. */
export interface FeatureTypeRow {
  id: string;
  lifetimeDays: number | null;
}

/** The rows `reduceFeatureTypes` changes, as the keyed projection writes them (the stored rows are not needed). */
export function evolveFeatureTypes(
  _current: ReadonlyMap<string, FeatureTypeRow>,
  events: readonly FlagEvent[],
): { rows: FeatureTypeRow[]; skipped: Skip[] } {
  const { lifetimes, skipped } = reduceFeatureTypes(events);
  return { rows: [...lifetimes].map(([id, lifetimeDays]) => ({ id, lifetimeDays })), skipped };
}
