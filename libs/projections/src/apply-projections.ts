import type { PoolClient } from 'pg';
import type { FlagTransition } from './flag-transitions';
import type { BatchChanges } from './change-feed';
import { defaultKey, EVERY, keysOf, type Projection, type Scope, type SourcedEvent } from './projection';

export interface ApplyHooks {
  /** An event a projection could not use (logged and counted by the caller). */
  skipped?: (projection: string, eventId: number, reason: string) => void;
  /** Runs each projection, e.g. timing it under its name. */
  stage?: <T>(name: string, fn: () => Promise<T>) => Promise<T>;
}

/**
 * Runs the projections, in order, on the newly stored events of a known type, each on the events it handles,
 * inside the caller's transaction; returns what each wrote (from its declaration and what it touched) and
 * the flag transitions of the batch.
 */
export async function applyProjections(
  client: PoolClient,
  stored: readonly SourcedEvent[],
  projections: readonly Projection[],
  hooks: ApplyHooks = {},
): Promise<{ changes: BatchChanges; transitions: FlagTransition[] }> {
  const changes: BatchChanges = new Map();
  const transitions: FlagTransition[] = [];
  const known = stored.filter((s) => s.knownType);
  const record = (p: Projection, scope: Scope, keys: readonly string[], part?: string) => {
    const name = part === undefined ? p.name : `${p.name}.${part}`;
    let entry = changes.get(name);
    if (!entry) {
      const tables = part === undefined ? p.writes : p.writes.map((t) => `${t}.${part}`);
      changes.set(name, (entry = { tables, flags: new Set(), projects: new Set() }));
    }
    for (const k of keys) {
      if (scope === 'flags' && k !== EVERY) entry.flags.add(k);
      else if (scope === 'projects' && k !== EVERY && entry.projects !== EVERY) entry.projects.add(k);
      // an instance-wide change, or every key of a scope: every key's rows
      else entry.projects = EVERY;
    }
  };
  const stage = hooks.stage ?? (<T>(_: string, fn: () => Promise<T>) => fn());
  for (const p of projections) {
    const mine = known.filter((s) => p.handles(s.event.type));
    if (mine.length === 0) continue;
    await stage(p.name, () =>
      p.apply(client, mine, {
        skipped: (id, reason) => hooks.skipped?.(p.name, id, reason),
        transitions,
        touch: (scope, keys) => {
          record(p, scope, keys);
          for (const part of Object.keys(p.parts ?? {})) record(p, scope, keys, part);
        },
      }),
    );
    for (const [part, keysOfPart] of Object.entries(p.parts ?? {}))
      for (const s of mine) {
        const keys = keysOfPart(s.event);
        if (keys.length > 0) record(p, p.scope, keys, part);
      }
    if (p.keysOf || p.scope === 'instance') for (const s of mine) record(p, p.scope, keysOf(p, s.event));
    else {
      // the default keys (keysOf), added without a list per event
      const flags = p.scope === 'flags';
      for (const s of mine) {
        const k = defaultKey(p.scope, s.event);
        if (!k) continue;
        const entry = changes.get(p.name);
        if (k !== EVERY && entry) {
          if (flags) entry.flags.add(k);
          else if (entry.projects !== EVERY) entry.projects.add(k);
        } else record(p, p.scope, [k]);
      }
    }
  }
  return { changes, transitions };
}
