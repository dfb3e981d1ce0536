import type { FlagEvent } from '@flaglens/contract';
import { DAY_MS } from '../time';

export interface EnableRow {
  featureName: string;
  environment: string;
  enabledAt: string;
  eventId: number;
}

/**
 * Enable times per (flag, environment), from `feature-environment-enabled` (semantics §3.3). Every enable
 * is kept, because which one counts is decided at read time: the earliest one in an environment whose
 * *current* type is `production`, strictly after the flag's *current* creation time. Events without a flag
 * or an environment are ignored (nothing to attribute them to). The read side finds these rows in the event
 * log (partial index `event_log_enable_idx`); this function states which they are, for the tests.
 */
export function enableRows(events: readonly FlagEvent[]): EnableRow[] {
  return events
    .filter((e) => e.type === 'feature-environment-enabled' && e.featureName && e.environment)
    .map((e) => ({
      featureName: e.featureName!,
      environment: e.environment!,
      enabledAt: e.createdAt,
      eventId: e.id,
    }));
}

/**
 * Average time to production (semantics §3.3): whole days truncated per flag, mean, one decimal, a mean that
 * rounds to 0 becomes 0.1, no flag → 0. `days` are the per-flag truncated day counts.
 */
export function averageTimeToProduction(days: readonly number[]): number {
  if (days.length === 0) return 0;
  const mean = days.reduce((a, b) => a + b, 0) / days.length;
  const rounded = Number(mean.toFixed(1));
  return rounded === 0 ? 0.1 : rounded;
}

export const wholeDaysBetween = (fromIso: string, toIso: string): number =>
  Math.floor((Date.parse(toIso) - Date.parse(fromIso)) / DAY_MS);
