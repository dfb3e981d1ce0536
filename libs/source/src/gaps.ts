/**
 * Gap tracking over Unleash's `events.id` (a sequence value taken before the transaction commits, so a lower
 * id can become visible after a higher one). Pure: the connector feeds it what one read saw.
 *
 * The position is a high-water mark `hwm` (every id ≤ hwm has been produced, or is an open gap) and the open
 * gaps: ranges of ids below hwm that were not visible when a higher id was. A gap closes when
 * - its row appears (it is produced then: commit order), or
 * - it is **provably abandoned**: a snapshot taken at least `graceMs` after the gap was noticed (the
 *   "watch" snapshot) lists the transactions in progress then. The transaction that took the gap's id had
 *   taken it before the higher visible id was taken, so by the watch it has either ended or is in that list
 *   (the grace covers the instant between `nextval` and the transaction's first xid, which the insert
 *   assigns right after). Once every transaction of the watch list has ended and the row is still not
 *   visible in the same snapshot, it never will be (rolled back); or
 * - after `maxWaitMs` (a transaction unrelated to Unleash that stays open for minutes keeps the proof from
 *   completing; the connector logs and counts such closings).
 */
export interface Gap {
  /** First and last missing id (inclusive). */
  lo: number;
  hi: number;
  /** When the gap was noticed (ms since the epoch). */
  noticedAt: number;
  /** The in-progress transaction ids (xid8, decimal) of the watch snapshot, once taken. */
  watch?: string[];
}

export interface Position {
  hwm: number;
  gaps: Gap[];
}

/** A Postgres snapshot (`pg_current_snapshot()`): xmin, xmax and the in-progress xids. */
export interface Snapshot {
  xmin: bigint;
  xmax: bigint;
  xip: bigint[];
}

export interface GapOptions {
  graceMs: number;
  maxWaitMs: number;
}

export const DEFAULT_GAP_OPTIONS: GapOptions = { graceMs: 1000, maxWaitMs: 300_000 };

export interface StepResult {
  position: Position;
  /** Ids that were gaps and are now visible (they are in `seen` and must be produced). */
  filled: number;
  /** Gap ranges closed because their transactions provably ended. */
  abandoned: Gap[];
  /** Gap ranges closed after maxWaitMs. */
  timedOut: Gap[];
}

/** Parses `pg_current_snapshot()::text` (`xmin:xmax:xip,xip,...`). */
export function parseSnapshot(text: string): Snapshot {
  const m = /^(\d+):(\d+):([\d,]*)$/.exec(text.trim());
  if (!m) throw new Error(`not a snapshot: ${text}`);
  return {
    xmin: BigInt(m[1]),
    xmax: BigInt(m[2]),
    xip: m[3] ? m[3].split(',').map((x) => BigInt(x)) : [],
  };
}

/** Whether transaction `xid` had ended (committed or aborted) when `snap` was taken. */
export function ended(xid: bigint, snap: Snapshot): boolean {
  if (xid < snap.xmin) return true;
  if (xid >= snap.xmax) return false;
  return !snap.xip.includes(xid);
}

/** Removes `ids` (sorted ascending, each inside some gap or not) from the gaps, splitting ranges. */
function removeIds(gaps: Gap[], ids: number[]): { gaps: Gap[]; removed: number } {
  if (ids.length === 0) return { gaps, removed: 0 };
  const out: Gap[] = [];
  let removed = 0;
  let i = 0;
  for (const g of gaps) {
    while (i < ids.length && ids[i] < g.lo) i++;
    let lo = g.lo;
    let j = i;
    while (j < ids.length && ids[j] <= g.hi) {
      const id = ids[j];
      if (id > lo) out.push({ ...g, lo, hi: id - 1 });
      lo = id + 1;
      removed++;
      j++;
    }
    if (lo <= g.hi) out.push({ ...g, lo });
  }
  return { gaps: out, removed };
}

/**
 * One read's effect on the position. `gapRows`: ids found inside open gaps; `newRows`: ids above hwm, sorted
 * ascending (a read returns a prefix: ids beyond the last one read are not gaps yet). `snap` is the snapshot
 * both reads ran in.
 */
export function step(
  position: Position,
  gapRows: readonly number[],
  newRows: readonly number[],
  snap: Snapshot,
  now: number,
  opts: GapOptions = DEFAULT_GAP_OPTIONS,
): StepResult {
  const sortedFound = [...gapRows].sort((a, b) => a - b);
  const { gaps: remaining, removed } = removeIds(position.gaps, sortedFound);
  const abandoned: Gap[] = [];
  const timedOut: Gap[] = [];
  const kept: Gap[] = [];
  for (const g of remaining) {
    if (now - g.noticedAt >= opts.maxWaitMs) {
      timedOut.push(g);
      continue;
    }
    let watch = g.watch;
    if (!watch && now - g.noticedAt >= opts.graceMs) watch = snap.xip.map(String);
    if (watch && watch.every((x) => ended(BigInt(x), snap))) {
      abandoned.push({ ...g, watch });
      continue;
    }
    kept.push(watch ? { ...g, watch } : g);
  }
  let hwm = position.hwm;
  for (const id of newRows) {
    if (id <= hwm) continue; // defensive: a read above hwm returns ids above it
    if (id > hwm + 1) kept.push({ lo: hwm + 1, hi: id - 1, noticedAt: now });
    hwm = id;
  }
  return { position: { hwm, gaps: kept }, filled: removed, abandoned, timedOut };
}

/** Number of ids in open gaps. */
export function openGapIds(gaps: readonly Gap[]): number {
  return gaps.reduce((n, g) => n + (g.hi - g.lo + 1), 0);
}
