/**
 * Which part of a free-text `query` the trigram index is asked for (docs/performance-reads.md, "Event search").
 *
 * pg_trgm's GIN index answers `ILIKE '%query%'` by reading the list of rows of every trigram of the query, and a
 * trigram such as `eve` or `nam` is in nearly every event: its list alone is millions of rows to decode, though
 * the rows the query matches may be one. Any piece of the query between its wildcards is in every text the query
 * matches, so the index may be asked for one piece instead, and the exact condition (the three ILIKEs) decides
 * after it. The piece chosen is the one whose trigrams cost least to read plus the rows it would let through,
 * both estimated from a sample of the stored texts. Pure.
 */

/** A word as pg_trgm reads one (letters and digits), limited to ASCII: its reading of others depends on the locale. */
const WORD = /[a-z0-9]+/g;

/** The trigrams pg_trgm stores for a text: each word lower-cased, two spaces before and one after. */
export function textTrigrams(text: string): Set<string> {
  const out = new Set<string>();
  for (const w of text.toLowerCase().match(WORD) ?? []) {
    const padded = `  ${w} `;
    for (let i = 0; i + 3 <= padded.length; i++) out.add(padded.slice(i, i + 3));
  }
  return out;
}

/** A sample of the stored texts (lower-cased), and for each trigram the texts of it that hold it. */
export interface TrigramSample {
  texts: string[];
  rows: Map<string, number[]>;
}

export function trigramSample(texts: readonly string[]): TrigramSample {
  const lower = texts.map((t) => t.toLowerCase());
  const rows = new Map<string, number[]>();
  lower.forEach((t, i) => {
    for (const g of textTrigrams(t)) {
      const list = rows.get(g);
      if (list) list.push(i);
      else rows.set(g, [i]);
    }
  });
  return { texts: lower, rows };
}

/** A piece of the query the index can be asked for, and the trigrams pg_trgm reads for `%piece%`. */
interface Piece {
  text: string;
  trigrams: string[];
}

/**
 * The trigrams pg_trgm reads for `ILIKE '%<before><word><after>%'`: the word with two spaces before when a
 * character that is no letter or digit precedes it, one space after when one follows it.
 */
function pieceTrigrams(word: string, bounded: { before: boolean; after: boolean }): string[] {
  const padded = `${bounded.before ? '  ' : ''}${word}${bounded.after ? ' ' : ''}`;
  const out: string[] = [];
  for (let i = 0; i + 3 <= padded.length; i++) out.push(padded.slice(i, i + 3));
  return [...new Set(out)];
}

/**
 * The pieces of `query` the index could be asked for: each word with the character before and after it (where
 * those are not wildcards), and the word's ends (its last or first characters, at least three). Only pieces that
 * give pg_trgm at least one trigram; none for a query holding `\` (an escape) or a character outside ASCII.
 */
export function queryPieces(query: string): Piece[] {
  // eslint-disable-next-line no-control-regex
  if (query.includes('\\') || /[^\x00-\x7f]/.test(query)) return [];
  const pieces: Piece[] = [];
  for (const run of query.toLowerCase().split(/[%_]/)) {
    for (const m of run.matchAll(WORD)) {
      const w = m[0];
      const start = m.index;
      const end = start + w.length;
      const before = start > 0 ? run[start - 1] : '';
      const after = end < run.length ? run[end] : '';
      // the word whole, with what bounds it
      if (w.length >= 3 || before !== '')
        pieces.push({
          text: before + w + after,
          trigrams: pieceTrigrams(w, { before: before !== '', after: after !== '' }),
        });
      // its ends, unbounded on the side cut
      for (let k = 3; k < w.length; k++) {
        pieces.push({
          text: w.slice(w.length - k) + after,
          trigrams: pieceTrigrams(w.slice(w.length - k), { before: false, after: after !== '' }),
        });
        pieces.push({
          text: before + w.slice(0, k),
          trigrams: pieceTrigrams(w.slice(0, k), { before: before !== '', after: false }),
        });
      }
    }
  }
  return pieces.filter((p) => p.trigrams.length > 0);
}

/**
 * A trigram's posting is cheap to decode next to a row the index lets through, which is read and matched: one
 * row weighs this many postings.
 */
const ROW_WEIGHT = 1000;

/** Whether a sorted list holds `x` (binary search). */
function holds(list: number[], x: number): boolean {
  let [lo, hi] = [0, list.length - 1];
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (list[mid] === x) return true;
    if (list[mid] < x) lo = mid + 1;
    else hi = mid - 1;
  }
  return false;
}

/** How many texts of the sample hold every one of `trigrams`: those the index would let through. */
function holdingAll(sample: TrigramSample, trigrams: string[]): number {
  const lists = trigrams.map((g) => sample.rows.get(g) ?? []).sort((a, b) => a.length - b.length);
  return lists[0].filter((i) => lists.every((l) => holds(l, i))).length;
}

/**
 * The `ILIKE` pattern to ask the trigram index for `query`: `%<piece>%` for the piece of least estimated cost,
 * by the sample: the postings of its trigrams plus ROW_WEIGHT for each text holding all of them (the rows the
 * index lets through; counted only for pieces that could still beat the best so far); `%<query>%` whole when
 * no piece can be chosen (no sample yet, no piece).
 */
export function indexPattern(query: string, sample: TrigramSample | null): string {
  const whole = `%${query}%`;
  if (sample === null || sample.texts.length === 0) return whole;
  const n = (g: string) => sample.rows.get(g)?.length ?? 0;
  const pieces = queryPieces(query)
    .map((p) => ({ ...p, postings: p.trigrams.reduce((t, g) => t + n(g), 0) }))
    .sort((a, b) => a.postings - b.postings || b.text.length - a.text.length);
  let best: { text: string; cost: number } | null = null;
  for (const p of pieces) {
    if (best !== null && p.postings >= best.cost) break;
    const cost = p.postings + ROW_WEIGHT * holdingAll(sample, p.trigrams);
    if (best === null || cost < best.cost) best = { text: p.text, cost };
  }
  return best === null ? whole : `%${best.text}%`;
}
