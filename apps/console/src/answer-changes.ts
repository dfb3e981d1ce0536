/**
 * What the api's diff (`GET /api/admin/diff`) says changed in a read's answer between two instants, as the
 * console shows it. Pure.
 *
 * The patch's paths are JSON Pointers with array indexes as the array is after the operations before them, so
 * they are replayed here on a copy of `before` to name each change: an array element with a `name` or an `id`
 * by it (`features[my-flag].stale`), anything else by its index. Those names are also what links a change to
 * its events: an event whose id, flag, project or environment is one of the names on the change's path.
 */

import type { Json, PatchOperation } from '@flaglens/contract/json-diff';

export type { Json, PatchOperation };

/** The fields of an event the console shows and links by. */
export interface DiffEvent {
  id: number;
  type: string;
  createdAt: string;
  createdBy: string;
  featureName: string | null;
  project: string | null;
  environment: string | null;
}

export interface DiffAnswer {
  path: string;
  from: string;
  to: string;
  before: Json;
  after: Json;
  patch: PatchOperation[];
  /** The range's events, oldest first: the first pages of them when `eventsNext` is not null. */
  events: DiffEvent[];
  /** The next page of the range's events, or null when `events` holds them all. */
  eventsNext: string | null;
}

/** A further page of a diff's events (`GET /api/admin/diff/events`). */
export type EventsPage<A extends DiffAnswer = DiffAnswer> = Pick<A, 'events' | 'eventsNext'>;

/**
 * The diff with its range's events read on from `eventsNext`, page after page, until they are all read or at
 * least `max` are (then `eventsNext` names the next page still); `get` answering null stops (the view is gone).
 */
export async function withEventPages<A extends DiffAnswer>(
  answer: A,
  max: number,
  get: (path: string) => Promise<EventsPage<A>> | null,
): Promise<A> {
  let a = answer;
  while (a.eventsNext !== null && a.events.length < max) {
    const next = get(a.eventsNext);
    if (next === null) break;
    const page = await next;
    a = { ...a, events: [...a.events, ...page.events], eventsNext: page.eventsNext };
  }
  return a;
}

export type ChangeKind = 'added' | 'removed' | 'changed' | 'moved';

export interface AnswerChange {
  kind: ChangeKind;
  /** Where, named: `features[my-flag].stale`; the whole answer: `(the answer)`. */
  where: string;
  /** The named places it marks in each answer (a move: where it was, where it is). */
  marks: { before: string | null; after: string | null };
  /** The value before (removed, changed, moved) and after (added, changed, moved). */
  before?: Json;
  after?: Json;
  /** The ids of the range's events that name a thing on the path. */
  eventIds: number[];
}

const isObject = (v: Json | undefined): v is { [key: string]: Json } =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

const clone = <T extends Json>(v: T): T => JSON.parse(JSON.stringify(v)) as T;

/** A JSON Pointer's tokens (RFC 6901). */
export function tokens(pointer: string): string[] {
  if (pointer === '') return [];
  if (!pointer.startsWith('/')) throw new Error(`not a JSON Pointer: ${pointer}`);
  return pointer
    .slice(1)
    .split('/')
    .map((t) => t.replace(/~1/g, '/').replace(/~0/g, '~'));
}

/** What an array element calls itself: its `name`, else its `id`; null for anything else. */
export function elementName(v: Json | undefined): string | null {
  if (!isObject(v)) return null;
  for (const k of ['name', 'id'])
    if (typeof v[k] === 'string' || typeof v[k] === 'number') return String(v[k]);
  return null;
}

/** A named path's text: members joined by dots, named elements in brackets, others by index. */
export function whereText(segments: readonly string[]): string {
  if (segments.length === 0) return '(the answer)';
  return segments.map((s, i) => (s.startsWith('[') || i === 0 ? s : `.${s}`)).join('');
}

/**
 * The named path of `pointer` in `doc`, and the names of the elements along it (the element the path ends at
 * too, when it exists in `doc`).
 */
function named(doc: Json, pointer: string): { segments: string[]; names: string[] } {
  const segments: string[] = [];
  const names: string[] = [];
  let at: Json | undefined = doc;
  for (const t of tokens(pointer)) {
    if (Array.isArray(at)) {
      const el: Json | undefined = t === '-' ? undefined : at[Number(t)];
      const name = elementName(el);
      segments.push(name === null ? `[${t}]` : `[${name}]`);
      if (name !== null) names.push(name);
      at = el;
    } else {
      segments.push(t);
      at = isObject(at) ? at[t] : undefined;
    }
  }
  return { segments, names };
}

function get(doc: Json, pointer: string): Json | undefined {
  let at: Json | undefined = doc;
  for (const t of tokens(pointer)) {
    if (Array.isArray(at)) at = at[Number(t)];
    else at = isObject(at) ? at[t] : undefined;
  }
  return at;
}

/** Applies one operation to `doc` (changed in place; the whole document replaced is returned). */
export function applyOperation(doc: Json, op: PatchOperation): Json {
  const remove = (d: Json, pointer: string): { doc: Json; value: Json | undefined } => {
    const ts = tokens(pointer);
    if (ts.length === 0) return { doc: null, value: d };
    const parent = get(d, `/${ts.slice(0, -1).map(escape).join('/')}`.replace(/^\/$/, ''));
    const last = ts[ts.length - 1];
    if (Array.isArray(parent)) return { doc: d, value: parent.splice(Number(last), 1)[0] };
    if (isObject(parent)) {
      const value = parent[last];
      delete parent[last];
      return { doc: d, value };
    }
    throw new Error(`no parent at ${pointer}`);
  };
  const add = (d: Json, pointer: string, value: Json): Json => {
    const ts = tokens(pointer);
    if (ts.length === 0) return value;
    const parent = get(d, `/${ts.slice(0, -1).map(escape).join('/')}`.replace(/^\/$/, ''));
    const last = ts[ts.length - 1];
    if (Array.isArray(parent)) parent.splice(last === '-' ? parent.length : Number(last), 0, value);
    else if (isObject(parent)) parent[last] = value;
    else throw new Error(`no parent at ${pointer}`);
    return d;
  };
  switch (op.op) {
    case 'add':
      return add(doc, op.path, clone(op.value));
    case 'remove':
      return remove(doc, op.path).doc;
    case 'replace':
      return add(remove(doc, op.path).doc, op.path, clone(op.value));
    case 'move': {
      const r = remove(doc, op.from);
      return add(r.doc, op.path, r.value ?? null);
    }
  }
}

const escape = (t: string): string => t.replace(/~/g, '~0').replace(/\//g, '~1');

/** The events that name one of `names` (by id, flag, project or environment). */
function eventsNaming(events: readonly DiffEvent[], names: readonly string[]): number[] {
  if (names.length === 0) return [];
  const set = new Set(names);
  return events
    .filter(
      (e) =>
        set.has(String(e.id)) ||
        (e.featureName !== null && set.has(e.featureName)) ||
        (e.project !== null && set.has(e.project)) ||
        (e.environment !== null && set.has(e.environment)),
    )
    .map((e) => e.id);
}

/** Each operation of the patch as a named change with its values and its events, in the patch's order. */
export function answerChanges(d: DiffAnswer): AnswerChange[] {
  let doc = clone(d.before);
  const out: AnswerChange[] = [];
  for (const op of d.patch) {
    if (op.op === 'add') {
      doc = applyOperation(doc, op);
      const n = named(doc, op.path);
      const where = whereText(n.segments);
      out.push({
        kind: 'added',
        where,
        marks: { before: null, after: where },
        after: op.value,
        eventIds: eventsNaming(d.events, n.names),
      });
    } else if (op.op === 'remove') {
      const n = named(doc, op.path);
      const before = get(doc, op.path);
      doc = applyOperation(doc, op);
      const where = whereText(n.segments);
      out.push({
        kind: 'removed',
        where,
        marks: { before: where, after: null },
        before,
        eventIds: eventsNaming(d.events, n.names),
      });
    } else if (op.op === 'replace') {
      const n = named(doc, op.path);
      const before = get(doc, op.path);
      doc = applyOperation(doc, op);
      const where = whereText(n.segments);
      out.push({
        kind: 'changed',
        where,
        marks: { before: where, after: where },
        before,
        after: op.value,
        eventIds: eventsNaming(d.events, n.names),
      });
    } else {
      const from = named(doc, op.from);
      doc = applyOperation(doc, op);
      const to = named(doc, op.path);
      const [was, is] = [whereText(from.segments), whereText(to.segments)];
      out.push({
        kind: 'moved',
        where: `${was} → ${is}`,
        marks: { before: was, after: is },
        eventIds: eventsNaming(d.events, [...from.names, ...to.names]),
      });
    }
  }
  return out;
}

/** One line of an answer as the side-by-side view prints it, with the named path of the value it holds. */
export interface AnswerLine {
  text: string;
  /** the named path (`whereText`) of the member or element the line opens or holds; '' for closing lines */
  where: string;
}

/** `doc` printed two spaces an indent, one member or element a line, each line with its named path. */
export function answerLines(doc: Json): AnswerLine[] {
  const lines: AnswerLine[] = [];
  const walk = (v: Json, segments: string[], indent: string, label: string, comma: string) => {
    const where = whereText(segments);
    if (Array.isArray(v) && v.length > 0) {
      lines.push({ text: `${indent}${label}[`, where });
      v.forEach((el, i) => {
        const name = elementName(el);
        walk(
          el,
          [...segments, name === null ? `[${i}]` : `[${name}]`],
          `${indent}  `,
          '',
          i < v.length - 1 ? ',' : '',
        );
      });
      lines.push({ text: `${indent}]${comma}`, where: '' });
    } else if (isObject(v) && Object.keys(v).length > 0) {
      lines.push({ text: `${indent}${label}{`, where });
      const keys = Object.keys(v);
      keys.forEach((k, i) =>
        walk(v[k], [...segments, k], `${indent}  `, `${JSON.stringify(k)}: `, i < keys.length - 1 ? ',' : ''),
      );
      lines.push({ text: `${indent}}${comma}`, where: '' });
    } else lines.push({ text: `${indent}${label}${JSON.stringify(v)}${comma}`, where });
  };
  walk(doc, [], '', '', '');
  return lines;
}

/** Whether a line at `where` is at or inside one of the changed places. */
export function inside(where: string, changed: readonly string[]): boolean {
  if (where === '') return false;
  return changed.some(
    (c) => c === '(the answer)' || where === c || where.startsWith(`${c}.`) || where.startsWith(`${c}[`),
  );
}
