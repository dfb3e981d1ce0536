/** A readable diff of an event's `preData` → `data`: one line per changed leaf, by its path. Pure. */
export type DiffKind = 'added' | 'removed' | 'changed';

export interface DiffLine {
  path: string;
  kind: DiffKind;
  before?: string;
  after?: string;
}

const MAX_LINES = 200;

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Leaves by path (`a.b[2].c`); an empty object or array is a leaf of its own. */
export function flatten(value: unknown, prefix = '', out = new Map<string, string>()): Map<string, string> {
  if (isObject(value) && Object.keys(value).length > 0) {
    for (const [k, v] of Object.entries(value))
      flatten(v, prefix ? `${prefix}.${/^[A-Za-z_$][\w$]*$/.test(k) ? k : JSON.stringify(k)}` : k, out);
  } else if (Array.isArray(value) && value.length > 0) {
    value.forEach((v, i) => flatten(v, `${prefix}[${i}]`, out));
  } else if (value !== undefined) {
    out.set(prefix || '(value)', JSON.stringify(value));
  }
  return out;
}

/** The changed leaves between `before` and `after`, in `after`'s order, then the removed ones. */
export function diff(before: unknown, after: unknown): { lines: DiffLine[]; truncated: boolean } {
  const a = before === null || before === undefined ? new Map<string, string>() : flatten(before);
  const b = after === null || after === undefined ? new Map<string, string>() : flatten(after);
  const lines: DiffLine[] = [];
  for (const [path, v] of b) {
    const old = a.get(path);
    if (old === undefined) lines.push({ path, kind: 'added', after: v });
    else if (old !== v) lines.push({ path, kind: 'changed', before: old, after: v });
  }
  for (const [path, v] of a) if (!b.has(path)) lines.push({ path, kind: 'removed', before: v });
  return { lines: lines.slice(0, MAX_LINES), truncated: lines.length > MAX_LINES };
}
