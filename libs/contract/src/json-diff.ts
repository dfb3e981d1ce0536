/**
 * The RFC 6902 operations that turn one JSON answer into another (`jsonDiff`), for `GET /api/admin/diff`. Pure.
 *
 * Objects are compared member by member. An array whose elements are all objects naming themselves (a `name`
 * or an `id`, each key once on either side) is compared by that key, not by position: a flag added to an
 * overview's list is one `add` at its place, a flag gone one `remove`, one that moved a `move`, and one that
 * changed the operations inside it, never a list shifted element by element. Any other array is compared by
 * position (a changed prefix replaced, the tail added or removed). Paths are JSON Pointers (RFC 6901), each
 * operation's indexes as the array is after the operations before it, so the list applies in order.
 *
 * Written here rather than taken from a library: the JSON Patch libraries diff arrays by position only.
 */

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

export type PatchOperation =
  | { op: 'add'; path: string; value: Json }
  | { op: 'remove'; path: string }
  | { op: 'replace'; path: string; value: Json }
  | { op: 'move'; from: string; path: string };

/** A JSON Pointer token: `~` as `~0`, `/` as `~1` (RFC 6901). */
const token = (key: string | number): string => String(key).replace(/~/g, '~0').replace(/\//g, '~1');

const isObject = (v: Json): v is { [key: string]: Json } =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** Deep equality of JSON values (object members in any order). */
export function jsonEqual(a: Json, b: Json): boolean {
  if (a === b) return true;
  if (Array.isArray(a))
    return Array.isArray(b) && a.length === b.length && a.every((x, i) => jsonEqual(x, b[i]));
  if (isObject(a)) {
    if (!isObject(b)) return false;
    const ka = Object.keys(a);
    if (ka.length !== Object.keys(b).length) return false;
    return ka.every((k) => Object.prototype.hasOwnProperty.call(b, k) && jsonEqual(a[k], b[k]));
  }
  return false;
}

/** The key an element names itself by, tried in this order. */
const KEYS = ['name', 'id'] as const;

/**
 * The key both arrays' elements are compared by: the first of KEYS that every element of both has as a string
 * or a number, with no value twice on either side; null when there is none.
 */
function keyOf(a: Json[], b: Json[]): string | null {
  if (a.length === 0 && b.length === 0) return null;
  for (const k of KEYS) {
    const ok = (xs: Json[]) => {
      const seen = new Set<string>();
      for (const x of xs) {
        if (!isObject(x)) return false;
        const v = x[k];
        if (typeof v !== 'string' && typeof v !== 'number') return false;
        const id = `${typeof v}:${v}`;
        if (seen.has(id)) return false;
        seen.add(id);
      }
      return true;
    };
    if (ok(a) && ok(b)) return k;
  }
  return null;
}

/** The operations that turn `before` into `after`; empty when they are equal. */
export function jsonDiff(before: Json, after: Json, path = ''): PatchOperation[] {
  if (jsonEqual(before, after)) return [];
  if (Array.isArray(before) && Array.isArray(after)) return arrayDiff(before, after, path);
  if (isObject(before) && isObject(after)) {
    const ops: PatchOperation[] = [];
    for (const k of Object.keys(before))
      if (!Object.prototype.hasOwnProperty.call(after, k))
        ops.push({ op: 'remove', path: `${path}/${token(k)}` });
    for (const k of Object.keys(after)) {
      const p = `${path}/${token(k)}`;
      if (!Object.prototype.hasOwnProperty.call(before, k)) ops.push({ op: 'add', path: p, value: after[k] });
      else ops.push(...jsonDiff(before[k], after[k], p));
    }
    return ops;
  }
  return [{ op: 'replace', path, value: after }];
}

function arrayDiff(before: Json[], after: Json[], path: string): PatchOperation[] {
  const key = keyOf(before, after);
  if (key === null) {
    // by position: the common length compared element by element, then the tail
    const ops: PatchOperation[] = [];
    const common = Math.min(before.length, after.length);
    for (let i = 0; i < common; i++) ops.push(...jsonDiff(before[i], after[i], `${path}/${i}`));
    for (let i = before.length - 1; i >= after.length; i--) ops.push({ op: 'remove', path: `${path}/${i}` });
    for (let i = before.length; i < after.length; i++)
      ops.push({ op: 'add', path: `${path}/${i}`, value: after[i] });
    return ops;
  }
  const id = (x: Json) => {
    const v = (x as { [k: string]: Json })[key];
    return `${typeof v}:${String(v)}`;
  };
  const wanted = new Set(after.map(id));
  const ops: PatchOperation[] = [];
  // the array as the operations so far leave it
  const current = [...before];
  for (let i = current.length - 1; i >= 0; i--)
    if (!wanted.has(id(current[i]))) {
      ops.push({ op: 'remove', path: `${path}/${i}` });
      current.splice(i, 1);
    }
  for (let j = 0; j < after.length; j++) {
    // usually already in place (lists keep their order): looked for from there on
    const want = id(after[j]);
    let k = -1;
    for (let i = j; i < current.length; i++)
      if (id(current[i]) === want) {
        k = i;
        break;
      }
    if (k === -1) {
      ops.push({ op: 'add', path: `${path}/${j}`, value: after[j] });
      current.splice(j, 0, after[j]);
    } else if (k !== j) {
      ops.push({ op: 'move', from: `${path}/${k}`, path: `${path}/${j}` });
      current.splice(j, 0, ...current.splice(k, 1));
    }
  }
  // each element now at its place: the changes inside it
  for (let j = 0; j < after.length; j++) ops.push(...jsonDiff(current[j], after[j], `${path}/${j}`));
  return ops;
}
