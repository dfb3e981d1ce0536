import type { PoolClient } from 'pg';
import type { FlagTransition } from './flag-transitions';
import { EVERY, type SourcedEvent } from './projection';

/**
 * The change feed: inside each batch's transaction the projector NOTIFYs what the batch wrote (tables and
 * keys, from the projections' declarations), so readers can drop cached answers exactly when the data behind
 * them commits (NOTIFY is delivered on COMMIT). Readers declare what they read (`Reads`); `dropped` derives
 * from the two declarations what a notice drops. The writer knows no reader.
 */
export const CHANGE_CHANNEL = 'flaglens_changes';

/** Postgres limits a NOTIFY payload to 8000 bytes: the names of one batch are split across notices of this size. */
const MAX_PAYLOAD_BYTES = 7000;
/** Past this many notices for one batch, one notice says "everything" (dropping all is then the cheaper). */
export const MAX_NOTICES = 16;
/** Writes of one batch at most (one per projection and part, and the log's): past this, "everything". */
const MAX_WRITES = 30;
/** The notice of "anything may have changed" (a rebuild's switch; more names than MAX_NOTICES hold). */
export const EVERYTHING_CHANGED = JSON.stringify({ v: 2, all: true });

/** What the event log's append writes, keyed by the stored events' flags and projects. */
export const EVENT_LOG_WRITES: readonly string[] = ['event_log', 'event_counts', 'unleash_release'];

/** Tables written together at the same keys (a flag, a project, beside the others of the batch). */
export interface WrittenKeys {
  readonly tables: readonly string[];
  readonly flags: readonly string[];
  readonly projects: readonly string[];
}

/** One notice as readers see it: what a committed batch (or part of one) wrote. */
export interface Changes {
  /** Anything may have changed: every cache drops everything. */
  readonly everything: boolean;
  /** Tables written at every key. */
  readonly every: readonly string[];
  /**
   * Keys written, grouped by the tables that wrote them. A flag-keyed row is its project's too: the projects
   * of the flags written (before and after the batch) are named with the flags' tables.
   */
  readonly written: readonly WrittenKeys[];
}

export const ANYTHING: Changes = { everything: true, every: [], written: [] };

/**
 * What a reader (a read model, a cache) reads: the tables (or `<table>.<part>`s) of its answers, and the key
 * its answers are of (`by`: each answer is of one flag, or of one project, and reads only that key's rows;
 * none: an answer may read any key's rows). `tables: '*'`: anything any batch writes.
 */
export interface Reads {
  readonly tables: readonly string[] | typeof EVERY;
  readonly by?: 'flags' | 'projects';
}

/** A reader that has not declared its tables: every notice drops all its answers. */
export const READS_ANYTHING: Reads = { tables: EVERY };

/** What a notice drops of a reader's answers: those of these keys, all of them, or none. */
export type Dropped = readonly string[] | 'all' | 'none';

/**
 * The rule from the two declarations, for one reader: an answer is dropped when a notice names a table it
 * reads at its key (its flag's or project's), or at every key; a reader not by key drops all its answers when
 * a table it reads is written at all.
 */
export function dropsOf(reads: Reads): (c: Changes) => Dropped {
  if (reads.tables === EVERY) return () => 'all';
  const tables = new Set(reads.tables);
  const by = reads.by;
  return (c) => {
    if (c.everything) return 'all';
    for (const t of c.every) if (tables.has(t)) return 'all';
    let keys: string[] | undefined;
    for (const w of c.written) {
      if (!w.tables.some((t) => tables.has(t))) continue;
      if (by === undefined) return 'all';
      const named = by === 'flags' ? w.flags : w.projects;
      if (named.length > 0) keys = keys ? keys.concat(named) : [...named];
    }
    return keys ?? 'none';
  };
}

/**
 * Tables written together at the same keys: a projection's (or part's), the event log's. The batch adds to the
 * keys while it applies; a flag's projects are added to them before the notices are encoded (`writtenBy`).
 */
export interface Written {
  readonly tables: readonly string[];
  readonly flags: Set<string>;
  /** every key: `'*'` */
  projects: Set<string> | typeof EVERY;
}

/**
 * What a batch wrote: per projection, its tables (Projection.writes) and the flags and the projects whose rows
 * it wrote; per part of a projection (`<projection>.<part>`, Projection.parts), those of the part, whose
 * tables are `<table>.<part>`.
 */
export type BatchChanges = Map<string, Written>;

/**
 * The notices of one batch's writes: each a payload of at most MAX_PAYLOAD_BYTES, each key named once with
 * the tables it was written to (keys written to the same tables share one list of them), all of them together
 * naming every key (a batch of a few hundred events, the usual under steady load, names more than one payload
 * holds). The tables written at every key go with the first notice. More than MAX_NOTICES notices: one notice
 * of "everything".
 */
export function encodeChanges(writes: readonly Written[]): string[] {
  // a batch's writes are one per projection (and part) and the log's: each key's writes fit in one bitmask
  if (writes.length > MAX_WRITES) return [EVERYTHING_CHANGED];
  const every = new Set<string>();
  const ofFlag = new Map<string, number>();
  const ofProject = new Map<string, number>();
  writes.forEach((w, i) => {
    if (w.projects === EVERY) {
      for (const t of w.tables) every.add(t);
      return;
    }
    const bit = 1 << i;
    for (const f of w.flags) ofFlag.set(f, (ofFlag.get(f) ?? 0) | bit);
    for (const p of w.projects) ofProject.set(p, (ofProject.get(p) ?? 0) | bit);
  });
  // keys by the writes (so the tables) they were written by
  const groups = new Map<number, { tables: string[]; flags: string[]; projects: string[] }>();
  const group = (mask: number) => {
    let g = groups.get(mask);
    if (!g) {
      const tables = new Set<string>();
      writes.forEach((w, i) => {
        if (mask & (1 << i)) for (const t of w.tables) tables.add(t);
      });
      groups.set(mask, (g = { tables: [...tables], flags: [], projects: [] }));
    }
    return g;
  };
  for (const [f, mask] of ofFlag) group(mask).flags.push(f);
  for (const [p, mask] of ofProject) group(mask).projects.push(p);

  const notices: string[] = [];
  let cur: { v: 2; e: string[]; w: [string[], string[], string[]][] } = { v: 2, e: [...every], w: [] };
  let bytes = Buffer.byteLength(JSON.stringify(cur));
  const flush = () => {
    notices.push(JSON.stringify(cur));
    cur = { v: 2, e: [], w: [] };
    bytes = Buffer.byteLength(JSON.stringify(cur));
  };
  for (const g of groups.values()) {
    const head = Buffer.byteLength(JSON.stringify([g.tables, [], []])) + 1;
    let entry: [string[], string[], string[]] | undefined;
    const name = (list: 1 | 2, key: string) => {
      const more = Buffer.byteLength(JSON.stringify(key)) + 1;
      if (bytes + more + (entry ? 0 : head) > MAX_PAYLOAD_BYTES && cur.w.length > 0) {
        flush();
        entry = undefined;
      }
      if (!entry) {
        entry = [g.tables, [], []];
        cur.w.push(entry);
        bytes += head;
      }
      entry[list].push(key);
      bytes += more;
    };
    for (const f of g.flags) name(1, f);
    for (const p of g.projects) name(2, p);
  }
  notices.push(JSON.stringify(cur));
  return notices.length > MAX_NOTICES || notices.some((n) => Buffer.byteLength(n) > MAX_PAYLOAD_BYTES)
    ? [EVERYTHING_CHANGED]
    : notices;
}

const strings = (v: unknown): v is string[] => Array.isArray(v) && v.every((f) => typeof f === 'string');

/** A notice as readers see it; anything but a notice of this feed (an older projector's, unreadable): everything. */
export function decodeChanges(payload: string | undefined): Changes {
  try {
    const parsed = JSON.parse(payload ?? '') as { v?: unknown; all?: unknown; e?: unknown; w?: unknown };
    if (parsed.v === 2 && parsed.all === undefined && strings(parsed.e) && Array.isArray(parsed.w)) {
      const written: WrittenKeys[] = [];
      for (const w of parsed.w as unknown[]) {
        if (!Array.isArray(w) || w.length !== 3 || !strings(w[0]) || !strings(w[1]) || !strings(w[2]))
          return ANYTHING;
        written.push({ tables: w[0], flags: w[1], projects: w[2] });
      }
      return { everything: false, every: parsed.e, written };
    }
  } catch {
    // fall through: an unreadable notice drops everything
  }
  return ANYTHING;
}

/**
 * What a batch wrote, for readers: the projections' writes, and the event log's (EVENT_LOG_WRITES, at the
 * stored events' flags and projects); a flag's rows being its project's, each write's flags' projects are
 * named with it, before and after the batch (a flag can move): from the flag transitions, and for the flags no
 * transition names, from one statement for all the writes. Adds those projects to `changes`' entries.
 */
export async function writtenBy(
  client: PoolClient,
  stored: readonly SourcedEvent[],
  changes: BatchChanges,
  transitions: readonly FlagTransition[],
): Promise<Written[]> {
  const flags = new Set<string>();
  const projects = new Set<string>();
  for (const s of stored) {
    if (s.event.featureName !== null) flags.add(s.event.featureName);
    if (s.event.project !== null) projects.add(s.event.project);
  }
  const writes: Written[] = [{ tables: EVENT_LOG_WRITES, flags, projects }];
  for (const w of changes.values())
    if (w.projects === EVERY || w.flags.size > 0 || w.projects.size > 0) writes.push(w); // else: no row written
  await addProjectsOfFlags(client, writes, transitions);
  return writes;
}

/**
 * Adds to each write's projects those of its flags: the transitions' (before and after), else looked up (one
 * statement for every write's flags: each name once, with the writes it was written by).
 */
async function addProjectsOfFlags(
  client: PoolClient,
  writes: readonly Written[],
  transitions: readonly FlagTransition[],
): Promise<void> {
  const byFlag = new Map<string, Set<string>>();
  for (const t of transitions) {
    let ps = byFlag.get(t.name);
    if (!ps) byFlag.set(t.name, (ps = new Set()));
    if (t.before) ps.add(t.before.project);
    ps.add(t.after.project);
  }
  // the flags no transition names, each with the writes (by index) that wrote it
  const unknown = new Map<string, number[]>();
  writes.forEach((w, i) => {
    const projects = w.projects;
    if (projects === EVERY) return;
    for (const f of w.flags) {
      const ps = byFlag.get(f);
      if (ps) for (const p of ps) projects.add(p);
      else {
        const of = unknown.get(f);
        if (of) of.push(i);
        else unknown.set(f, [i]);
      }
    }
  });
  if (unknown.size === 0) return;
  // the names written by the same writes share a group: the statement returns each project with its groups
  const groupIds = new Map<string, number>();
  const groupWrites: number[][] = [];
  const names: string[] = [];
  const groups: number[] = [];
  for (const [f, of] of unknown) {
    const id = of.join(',');
    let g = groupIds.get(id);
    if (g === undefined) {
      groupIds.set(id, (g = groupWrites.length));
      groupWrites.push(of);
    }
    names.push(f);
    groups.push(g);
  }
  const r = await client.query<{ project: string; groups: number[] }>(
    `SELECT f.project, array_agg(DISTINCT n.g) AS groups
       FROM unnest($1::text[], $2::int[]) AS n(name, g) JOIN flag_state f ON f.name = n.name
      GROUP BY f.project`,
    [names, groups],
  );
  for (const { project, groups: gs } of r.rows)
    for (const g of gs)
      for (const i of groupWrites[g]) {
        const projects = writes[i].projects;
        if (projects !== EVERY) projects.add(project);
      }
}
