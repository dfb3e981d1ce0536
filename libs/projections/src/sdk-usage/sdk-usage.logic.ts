import type { FlagEvent } from '@flaglens/contract';
import { data, str, type Skip } from '../event-fields';

export interface SdkSeen {
  /** first and last time (event createdAt) an SDK reported it */
  first: string;
  last: string;
}

/**
 * SDK usage (semantics §3.8, G2): `client-metrics` events (data = the SDK's metrics body) mark every flag
 * named in `data.bucket.toggles` as seen, whether or not the flag exists yet (a flag created later is then
 * already "seen", as the reference's last-seen table keyed by name); `client-register` and `client-metrics`
 * events that carry a `project` mark that project as seen (the reference's client_applications_usage), and
 * so does a `client-register` naming it in `data.project` (how the source connector carries that table: SDK
 * traffic with an event-level project would count as project activity, which it is not in the reference).
 * Order-independent (min/max). Fallback: `bucket.toggles` missing or not an object → skipped.
 */
export function sdkUsage(events: readonly FlagEvent[]): {
  flags: Map<string, SdkSeen>;
  projects: Map<string, SdkSeen>;
  skipped: Skip[];
} {
  const flags = new Map<string, SdkSeen>();
  const projects = new Map<string, SdkSeen>();
  const skipped: Skip[] = [];
  const see = (m: Map<string, SdkSeen>, k: string, at: string) => {
    const p = m.get(k);
    m.set(
      k,
      p ? { first: p.first < at ? p.first : at, last: p.last > at ? p.last : at } : { first: at, last: at },
    );
  };
  for (const e of events) {
    if (e.type !== 'client-metrics' && e.type !== 'client-register') continue;
    if (e.project) see(projects, e.project, e.createdAt);
    if (e.type !== 'client-metrics') {
      const named = str(data(e).project);
      if (named) see(projects, named, e.createdAt);
      continue;
    }
    const bucket = data(e).bucket as Record<string, unknown> | undefined;
    const toggles = bucket && typeof bucket === 'object' ? bucket.toggles : undefined;
    if (!toggles || typeof toggles !== 'object' || Array.isArray(toggles)) {
      skipped.push({ eventId: e.id, reason: 'client-metrics without data.bucket.toggles' });
      continue;
    }
    for (const name of Object.keys(toggles)) see(flags, name, e.createdAt);
  }
  return { flags, projects, skipped };
}
