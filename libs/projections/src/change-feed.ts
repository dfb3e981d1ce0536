import type { PoolClient } from 'pg';
import type { BatchChanges } from './apply-projections';
import type { FlagTransition } from './flag-state/flag-state.logic';
import { projectsOfFlags } from './flag-state/flag-state.projection';
import { OVERVIEW_READS } from './overview/overview.read-model';
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
const EVERYTHING = JSON.stringify({ flags: '*', projects: '*', identity: true });

export interface Changes {
  /** Feature names whose event lists changed; `'*'` means anything may have changed. */
  flags: string[] | '*';
  /**
   * Projects whose overview may have changed; `'*'` means any project's. A payload without the field (an
   * older projector) and any `flags: '*'` read as `'*'`.
   */
  projects: string[] | '*';
  /**
   * Whether users, roles, groups, memberships or tokens may have changed (what callers may see, who they
   * are). A payload without the field reads as true when any project may have changed.
   */
  identity: boolean;
}

/**
 * The notices of one batch's changes: each a payload of at most MAX_PAYLOAD_BYTES naming some of the changed
 * flags and projects, all of them together naming each once (a batch of a few hundred events, the usual under
 * steady load, names more than one payload holds). `projects` '*' (any project) goes with the first notice.
 * More than MAX_NOTICES notices: one notice of "everything".
 */
export function encodeChanges(
  flags: Iterable<string>,
  projects: Iterable<string> | '*' = '*',
  identity = true,
): string[] {
  const notices: string[] = [];
  let cur: { flags: string[]; projects: string[] | '*' } = {
    flags: [],
    projects: projects === '*' ? '*' : [],
  };
  const size = () => Buffer.byteLength(JSON.stringify({ ...cur, identity }));
  let bytes = size();
  const add = (list: 'flags' | 'projects', name: string) => {
    const more = Buffer.byteLength(JSON.stringify(name)) + 1;
    const named = cur.flags.length + (cur.projects === '*' ? 0 : cur.projects.length);
    if (bytes + more > MAX_PAYLOAD_BYTES && named > 0) {
      notices.push(JSON.stringify({ ...cur, identity }));
      cur = { flags: [], projects: [] };
      bytes = size();
    }
    (cur[list] as string[]).push(name);
    bytes += more;
  };
  for (const f of new Set(flags)) add('flags', f);
  if (projects !== '*') for (const p of new Set(projects)) add('projects', p);
  notices.push(JSON.stringify({ ...cur, identity }));
  return notices.length > MAX_NOTICES || notices.some((n) => Buffer.byteLength(n) > MAX_PAYLOAD_BYTES)
    ? [EVERYTHING]
    : notices;
}

const strings = (v: unknown): v is string[] => Array.isArray(v) && v.every((f) => typeof f === 'string');

export function decodeChanges(payload: string | undefined): Changes {
  try {
    const parsed = JSON.parse(payload ?? '') as { flags?: unknown; projects?: unknown; identity?: unknown };
    if (strings(parsed.flags)) {
      const projects = strings(parsed.projects) ? parsed.projects : '*';
      const identity =
        typeof parsed.identity === 'boolean' ? parsed.identity : projects === '*' || projects.length > 0;
      return { flags: parsed.flags, projects, identity };
    }
  } catch {
    // fall through: an unreadable notice invalidates everything
  }
  return { flags: '*', projects: '*', identity: true };
}

/**
 * The readers' view of what a batch changed, derived from the projections' declarations: the flags whose
 * event lists changed (every newly stored event's flag); the projects whose overview may have changed (the
 * keys the projections the overview reads touched: a flag's change is its project's, before and after the
 * batch; an instance-wide change is every project's); and whether identity changed.
 */
export async function deriveChanges(
  client: PoolClient,
  stored: readonly SourcedEvent[],
  changes: BatchChanges,
  transitions: readonly FlagTransition[],
  overviewReads: readonly string[] = OVERVIEW_READS,
): Promise<Changes> {
  const flags = new Set<string>();
  for (const s of stored) if (s.event.featureName !== null) flags.add(s.event.featureName);
  // the event log is read by the overview too (activity, time to production): its flags are touched
  const touched: BatchChanges = new Map([
    ['event-log', { flags: new Set(flags), projects: new Set() }],
    ...changes,
  ]);
  let projects: Set<string> | typeof EVERY = new Set();
  const flagsOfOverview = new Set<string>();
  for (const name of overviewReads) {
    const c = touched.get(name);
    if (!c) continue;
    if (c.projects === EVERY) {
      projects = EVERY;
      break;
    }
    for (const p of c.projects) projects.add(p);
    for (const f of c.flags) flagsOfOverview.add(f);
  }
  if (projects !== EVERY && flagsOfOverview.size > 0) {
    // a flag's change is its project's: before and after the batch (a flag can move)
    const unknown = new Set(flagsOfOverview);
    for (const t of transitions) {
      if (t.before) projects.add(t.before.project);
      projects.add(t.after.project);
      unknown.delete(t.name);
    }
    for (const p of await projectsOfFlags(client, [...unknown])) projects.add(p);
  }
  return {
    flags: [...flags],
    projects: projects === EVERY ? '*' : [...projects],
    identity: changes.has('identity'),
  };
}
