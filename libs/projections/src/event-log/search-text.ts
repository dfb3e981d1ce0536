/**
 * The texts the event search's free-text `query` matches, as the reference's Postgres casts its columns to
 * text: `data` and `tags` are `json` (the text Unleash stored: `JSON.stringify` of its values), `pre_data` is
 * `jsonb` (Postgres's normal form: keys ordered by length then bytes, `", "` and `": "` between members).
 * Pure; a missing `data` or `preData` has no text (SQL NULL), missing `tags` are `[]` (the column's default).
 */
export interface SearchTexts {
  data: string | null;
  tags: string;
  preData: string | null;
}

export function searchTexts(e: { data?: unknown; tags?: unknown; preData?: unknown }): SearchTexts {
  return {
    data: e.data == null ? null : JSON.stringify(e.data),
    tags: e.tags == null ? '[]' : JSON.stringify(e.tags),
    preData: e.preData == null ? null : jsonbText(e.preData),
  };
}

/** A JSON value's text as Postgres prints it as `jsonb`. */
export function jsonbText(v: unknown): string {
  if (v === null || typeof v !== 'object') return JSON.stringify(v) ?? 'null';
  if (Array.isArray(v)) return `[${v.map(jsonbText).join(', ')}]`;
  const keys = Object.keys(v).sort(jsonbKeyOrder);
  return `{${keys.map((k) => `${JSON.stringify(k)}: ${jsonbText((v as Record<string, unknown>)[k])}`).join(', ')}}`;
}

/** jsonb's key order: shorter (in UTF-8 bytes) first, then byte by byte. */
function jsonbKeyOrder(a: string, b: string): number {
  const [x, y] = [Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8')];
  return x.length - y.length || Buffer.compare(x, y);
}
