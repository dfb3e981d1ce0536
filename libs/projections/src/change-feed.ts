import type { PoolClient } from 'pg';
import type { BatchChanges } from './apply-projections';
import type { FlagTransition } from './flag-state/flag-state.logic';
import { projectsOfFlags } from './flag-state/flag-state.projection';
import { OVERVIEW_READS, OVERVIEW_STATE_READS } from './overview/overview.read-model';
import { EVERY, type SourcedEvent } from './projection';

/**
 * The change feed: inside each batch's transaction the projector NOTIFYs what it changed, so readers can
 * drop cached answers exactly when the data behind them commits (NOTIFY is delivered on COMMIT).
 */
export const CHANGE_CHANNEL = 'flaglens_changes';

/** Postgres limits a NOTIFY payload to 8000 bytes: the names of one batch are split across notices of this size. */
const MAX_PAYLOAD_BYTES = 7000;
/** Past this many notices for one batch, one notice says "everything" (dropping all is then the cheaper). */
export const MAX_NOTICES = 16;
const EVERYTHING = JSON.stringify({ flags: '*', projects: '*', states: '*', identity: true });

export interface Changes {
  /** Feature names whose event lists changed; `'*'` means anything may have changed. */
  flags: string[] | '*';
  /**
   * Projects whose overview may have changed; `'*'` means any project's. A payload without the field (an
   * older projector) and any `flags: '*'` read as `'*'`.
   */
  projects: string[] | '*';
  /**
   * Of those, the projects whose overview state (everything but its activity: OverviewState) may have
   * changed; `'*'` means any project's. A payload without the field (an older projector) reads as `projects`.
   */
  states: string[] | '*';
  /**
   * Whether users, roles, groups, memberships or tokens may have changed (what callers may see, who they
   * are). A payload without the field reads as true when any project may have changed.
   */
  identity: boolean;
}

/**
 * The notices of one batch's changes: each a payload of at most MAX_PAYLOAD_BYTES naming some of the changed
 * flags, projects and project states, all of them together naming each once (a batch of a few hundred
 * events, the usual under steady load, names more than one payload holds). A list that is '*' (any project)
 * goes with the first notice; so do `states` when `projects` is '*'. More than MAX_NOTICES notices: one
 * notice of "everything".
 */
export function encodeChanges(
  flags: Iterable<string>,
  projects: Iterable<string> | '*' = '*',
  identity = true,
  states: Iterable<string> | '*' = projects,
): string[] {
  const notices: string[] = [];
  const anyState = projects === '*' || states === '*';
  let cur: { flags: string[]; projects: string[] | '*'; states: string[] | '*' } = {
    flags: [],
    projects: projects === '*' ? '*' : [],
    states: anyState ? '*' : [],
  };
  const size = () => Buffer.byteLength(JSON.stringify({ ...cur, identity }));
  let bytes = size();
  const add = (list: 'flags' | 'projects' | 'states', name: string) => {
    const more = Buffer.byteLength(JSON.stringify(name)) + 1;
    const named =
      cur.flags.length +
      (cur.projects === '*' ? 0 : cur.projects.length) +
      (cur.states === '*' ? 0 : cur.states.length);
    if (bytes + more > MAX_PAYLOAD_BYTES && named > 0) {
      notices.push(JSON.stringify({ ...cur, identity }));
      cur = { flags: [], projects: [], states: [] };
      bytes = size();
    }
    (cur[list] as string[]).push(name);
    bytes += more;
  };
  for (const f of new Set(flags)) add('flags', f);
  if (projects !== '*') for (const p of new Set(projects)) add('projects', p);
  if (!anyState) for (const p of new Set(states as Iterable<string>)) add('states', p);
  notices.push(JSON.stringify({ ...cur, identity }));
  return notices.length > MAX_NOTICES || notices.some((n) => Buffer.byteLength(n) > MAX_PAYLOAD_BYTES)
    ? [EVERYTHING]
    : notices;
}

const strings = (v: unknown): v is string[] => Array.isArray(v) && v.every((f) => typeof f === 'string');

export function decodeChanges(payload: string | undefined): Changes {
  try {
    const parsed = JSON.parse(payload ?? '') as {
      flags?: unknown;
      projects?: unknown;
      states?: unknown;
      identity?: unknown;
    };
    if (strings(parsed.flags)) {
      const projects = strings(parsed.projects) ? parsed.projects : '*';
      const states = strings(parsed.states) ? parsed.states : parsed.states === '*' ? '*' : projects;
      const identity =
        typeof parsed.identity === 'boolean' ? parsed.identity : projects === '*' || projects.length > 0;
      return { flags: parsed.flags, projects, states, identity };
    }
  } catch {
    // fall through: an unreadable notice invalidates everything
  }
  return { flags: '*', projects: '*', states: '*', identity: true };
}

/**
 * The readers' view of what a batch changed, derived from the projections' declarations: the flags whose
 * event lists changed (every newly stored event's flag); the projects whose overview may have changed (the
 * keys the projections the overview reads touched: a flag's change is its project's, before and after the
 * batch; an instance-wide change is every project's), and of those the projects whose overview state may
 * have changed (the same, over what the state reads); and whether identity changed.
 */
export async function deriveChanges(
  client: PoolClient,
  stored: readonly SourcedEvent[],
  changes: BatchChanges,
  transitions: readonly FlagTransition[],
  overviewReads: readonly string[] = OVERVIEW_READS,
  stateReads: readonly string[] = OVERVIEW_STATE_READS,
): Promise<Changes> {
  const flags = new Set<string>();
  for (const s of stored) if (s.event.featureName !== null) flags.add(s.event.featureName);
  // the event log is read by the overview too (activity, time to production): its flags are touched
  const touched: BatchChanges = new Map([
    ['event-log', { flags: new Set(flags), projects: new Set() }],
    ...changes,
  ]);
  const [projects, states] = await projectsTouched(
    client,
    touchedBy(touched, overviewReads),
    touchedBy(touched, stateReads),
    transitions,
  );
  return { flags: [...flags], projects, states, identity: changes.has('identity') };
}

/**
 * The projects behind two touches (the overview's, its state's): a flag's change is its project's, before and
 * after the batch (a flag can move); the flags no transition names are looked up in one statement for both.
 */
async function projectsTouched(
  client: PoolClient,
  all: Touch,
  part: Touch,
  transitions: readonly FlagTransition[],
): Promise<[string[] | '*', string[] | '*']> {
  const unknownOf = ({ projects, flags }: Touch): string[] => {
    if (projects === EVERY || flags.size === 0) return [];
    const unknown = new Set(flags);
    for (const t of transitions) {
      if (!flags.has(t.name)) continue;
      if (t.before) projects.add(t.before.project);
      projects.add(t.after.project);
      unknown.delete(t.name);
    }
    return [...unknown];
  };
  const unknownOfPart = unknownOf(part);
  // the part's flags are mostly the whole's too: each name looked up once
  const names = new Set([...unknownOf(all), ...unknownOfPart]);
  const found = await projectsOfFlags(client, [...names], unknownOfPart);
  const list = ({ projects }: Touch, more: string[]): string[] | '*' =>
    projects === EVERY ? '*' : [...new Set([...projects, ...more])];
  return [list(all, found.projects), list(part, found.ofMarked)];
}

interface Touch {
  projects: Set<string> | typeof EVERY;
  flags: Set<string>;
}

/** The projects and the flags that the projections (or parts) `reads` touched in a batch. */
function touchedBy(touched: BatchChanges, reads: readonly string[]): Touch {
  const projects = new Set<string>();
  const flags = new Set<string>();
  for (const name of reads) {
    const c = touched.get(name);
    if (!c) continue;
    if (c.projects === EVERY) return { projects: EVERY, flags: new Set() };
    for (const p of c.projects) projects.add(p);
    for (const f of c.flags) flags.add(f);
  }
  return { projects, flags };
}
