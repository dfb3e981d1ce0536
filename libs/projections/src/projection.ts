import type { PoolClient } from 'pg';
import type { FlagEvent } from '@flaglens/contract';
import type { FlagTransition } from './flag-transitions';

/** An accepted event with where it came from. */
export interface SourcedEvent {
  event: FlagEvent;
  knownType: boolean;
  topic: string | null;
  partition: number | null;
  offset: number | null;
  /**
   * The message value as received: the UTF-8 JSON that `event` was parsed and validated from. When present
   * it is stored as the event's body byte for byte (no second serialisation on the projector's busiest
   * thread); the wire form is rendered from it when the event list is read (`wireFromStored`). Without it
   * (events built in code) the body is the wire JSON.
   */
  raw?: Buffer;
  /** The Unleash release line the event was read from, when its message said (`flaglens-unleash-release`). */
  release?: string;
}

/**
 * What a projection's rows are keyed by:
 * - `flags`: rows of a flag (and so of its project: the change feed names a flag's project, before and after
 *   the batch, beside the flag);
 * - `projects`: rows of a project;
 * - `instance`: rows of no one key (environments, feature types, users and roles): every key's.
 */
export type Scope = 'flags' | 'projects' | 'instance';

/** Every projection, of any scope, of every key: drop everything. */
export const EVERY = '*';

/**
 * A read model updated from events, inside the transaction of the batch that stored them, declared the way
 * Emmett's projections are: which events it handles (`handles`), what it writes (`writes`: its tables, keyed
 * by `scope` and `keysOf`), and how it applies them (`apply`). The pipeline runs it on the newly stored events
 * it handles, and publishes from the declarations what a batch wrote (change-feed.ts); readers drop what they
 * declared they read of it. A projection knows nothing of its readers.
 *
 * Rules every projection keeps (docs/design.md#determinism, docs/design.md#exactly-once-effect):
 * - `apply` sees only events that were newly stored in the event log (an id seen twice is applied once),
 *   of a known type it handles.
 * - The result is a function of the events alone (event `createdAt`, never the processing time), and must
 *   not depend on the interleaving of events of different keys (a flag's events may come before its
 *   project's `project-created`). Read-time values (windows, staleness) are computed by the read model.
 * - An event that is valid but inconsistent (unknown project, wrong `data` shape) never throws: apply a
 *   documented fallback, or skip it and report it through `skipped`.
 * - The update logic is pure (`*.logic.ts`: events in, row changes out); the SQL is in the projection.
 */
export interface Projection {
  /** Stable name, used in metrics and logs. */
  readonly name: string;
  /** Whether it reads events of this type. */
  handles(type: string): boolean;
  /**
   * The tables it writes (each keyed as `scope` and `keysOf` say): what readers declare they read
   * (change-feed.ts `Reads`).
   */
  readonly writes: readonly string[];
  /**
   * The tables besides its own that `apply` reads (another projection's, the event log's; `flag_state` for
   * flag-state's transitions of the batch, `ProjectionContext.transitions`), none by default: a read as of an instant replays only the projections that write what it reads and those they read
   * (registry.ts `projectionsFor`). registry.int-spec.ts measures what each one reads against this.
   */
  readonly reads?: readonly string[];
  readonly scope: Scope;
  /**
   * The keys of its scope an event changes: by default the event's `featureName` (scope `flags`), its
   * `project` (scope `projects`), or everything (scope `instance`). `'*'` is every key.
   */
  keysOf?(event: FlagEvent): readonly string[];
  /**
   * Parts of its tables' rows that a reader may depend on alone, each with the keys (of its scope) an event
   * changes in that part: a reader that reads only part `x` of table `t` declares `t.x` (e.g.
   * `projects.settings`, a project's settings without its latest event time). Keys the projection touches
   * (`context.touch`) count for every part.
   */
  readonly parts?: Readonly<Record<string, (event: FlagEvent) => readonly string[]>>;
  apply(client: PoolClient, events: SourcedEvent[], context: ProjectionContext): Promise<void>;
}

export interface ProjectionContext {
  /** Records an event that the projection could not use, with the reason (logged and counted). */
  skipped(eventId: number, reason: string): void;
  /**
   * Each flag's state before and after each event of the batch, in event order: flag-state appends them, the
   * projections that run after it read them (a declared read, instead of a second copy of flag state).
   */
  readonly transitions: FlagTransition[];
  /** Records keys the batch changed beyond those the declaration gives (e.g. every project). */
  touch(scope: Scope, keys: readonly string[]): void;
}

/** The key of a keyed scope an event changes unless its projection says otherwise: its flag, or its project. */
export const defaultKey = (scope: 'flags' | 'projects', e: FlagEvent): string | null =>
  scope === 'flags' ? e.featureName : e.project;

/** The keys of `p`'s scope that `e` changes. */
export function keysOf(p: Projection, e: FlagEvent): readonly string[] {
  if (p.keysOf) return p.keysOf(e);
  if (p.scope === 'instance') return [EVERY];
  const key = defaultKey(p.scope, e);
  return key ? [key] : [];
}
