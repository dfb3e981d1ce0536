import fc from 'fast-check';
import { ended, openGapIds, parseSnapshot, step, type Position, type Snapshot } from './gaps';

const snap = (xmin: number, xmax: number, xip: number[] = []): Snapshot => ({
  xmin: BigInt(xmin),
  xmax: BigInt(xmax),
  xip: xip.map(BigInt),
});
const opts = { graceMs: 1000, maxWaitMs: 60_000 };

describe('gap tracking', () => {
  it('parses pg_current_snapshot() and tells ended transactions', () => {
    const s = parseSnapshot('100:105:100,103');
    expect(s).toEqual(snap(100, 105, [100, 103]));
    expect(parseSnapshot('7:7:')).toEqual(snap(7, 7));
    expect(ended(99n, s)).toBe(true);
    expect(ended(100n, s)).toBe(false);
    expect(ended(101n, s)).toBe(true);
    expect(ended(103n, s)).toBe(false);
    expect(ended(105n, s)).toBe(false);
    expect(() => parseSnapshot('nope')).toThrow();
  });

  it('a hole below a visible id is a gap; it closes when its row appears (produced then)', () => {
    let p: Position = { hwm: 0, gaps: [] };
    let r = step(p, [], [1, 2, 4, 5], snap(10, 12, [10, 11]), 0, opts);
    expect(r.position).toEqual({ hwm: 5, gaps: [{ lo: 3, hi: 3, noticedAt: 0 }] });
    p = r.position;
    r = step(p, [3], [6], snap(12, 13), 500, opts);
    expect(r.filled).toBe(1);
    expect(r.position).toEqual({ hwm: 6, gaps: [] });
  });

  it('a gap is abandoned once every transaction of its watch snapshot ended and the row is still missing', () => {
    let r = step({ hwm: 0, gaps: [] }, [], [1, 3], snap(10, 12, [10, 11]), 0, opts);
    // within the grace: no watch yet
    r = step(r.position, [], [], snap(10, 12, [10, 11]), 999, opts);
    expect(r.position.gaps[0].watch).toBeUndefined();
    // the watch is taken from the first snapshot after the grace
    r = step(r.position, [], [], snap(10, 13, [10, 12]), 1000, opts);
    expect(r.position.gaps[0].watch).toEqual(['10', '12']);
    // 10 ended, 12 still running: open
    r = step(r.position, [], [], snap(12, 14, [12, 13]), 2000, opts);
    expect(r.position.gaps).toHaveLength(1);
    // both ended, the row never appeared: rolled back
    r = step(r.position, [], [], snap(13, 14, [13]), 3000, opts);
    expect(r.abandoned).toHaveLength(1);
    expect(r.position.gaps).toEqual([]);
  });

  it('with nothing in progress at the watch, the gap closes at once; after maxWait it times out', () => {
    let r = step({ hwm: 0, gaps: [] }, [], [2], snap(5, 5), 0, opts);
    r = step(r.position, [], [], snap(5, 5), 1000, opts);
    expect(r.abandoned).toHaveLength(1);
    r = step({ hwm: 0, gaps: [] }, [], [2], snap(5, 6, [5]), 0, opts);
    r = step(r.position, [], [], snap(5, 6, [5]), 1000, opts);
    r = step(r.position, [], [], snap(5, 6, [5]), 60_000, opts);
    expect(r.timedOut).toHaveLength(1);
    expect(r.position.gaps).toEqual([]);
  });

  it('ranges split when some of their ids appear', () => {
    const r = step({ hwm: 0, gaps: [] }, [], [10], snap(1, 1), 0, opts);
    expect(openGapIds(r.position.gaps)).toBe(9);
    const s = step(r.position, [3, 4, 9], [], snap(1, 1), 10, opts);
    expect(s.position.gaps.map((g) => [g.lo, g.hi])).toEqual([
      [1, 2],
      [5, 8],
    ]);
    expect(s.filled).toBe(3);
  });

  /**
   * A model of Postgres: transactions take an xid, then ids from a sequence, and commit or roll back in any
   * order, interleaved with reads (each in one snapshot). Whatever the interleaving, every committed id is
   * produced exactly once, and no gap that closes as abandoned holds a committed id.
   */
  it('produces every committed id exactly once under any commit order (model)', () => {
    type Tx = { xid: number; ids: number[]; state: 'open' | 'committed' | 'aborted' };
    const action = fc.oneof(
      fc.record({ kind: fc.constant('begin' as const), n: fc.integer({ min: 1, max: 3 }) }),
      fc.record({ kind: fc.constant('end' as const), pick: fc.nat(), commit: fc.boolean() }),
      fc.record({
        kind: fc.constant('read' as const),
        limit: fc.integer({ min: 1, max: 5 }),
        dt: fc.nat(800),
      }),
    );
    fc.assert(
      fc.property(fc.array(action, { maxLength: 60 }), (actions) => {
        const txs: Tx[] = [];
        let nextXid = 100;
        let nextId = 1;
        let now = 0;
        let p: Position = { hwm: 0, gaps: [] };
        const produced: number[] = [];
        const abandonedIds: number[] = [];
        const read = (limit: number) => {
          const open = txs.filter((t) => t.state === 'open').map((t) => t.xid);
          const s = snap(open.length ? Math.min(...open) : nextXid, nextXid, open);
          const visible = new Set(txs.filter((t) => t.state === 'committed').flatMap((t) => t.ids));
          const inGaps = [...visible].filter((id) => p.gaps.some((g) => id >= g.lo && id <= g.hi));
          const above = [...visible]
            .filter((id) => id > p.hwm)
            .sort((a, b) => a - b)
            .slice(0, limit);
          const r = step(p, inGaps, above, s, now, opts);
          produced.push(...inGaps, ...above);
          for (const g of [...r.abandoned, ...r.timedOut])
            for (let i = g.lo; i <= g.hi; i++) abandonedIds.push(i);
          p = r.position;
        };
        for (const a of actions) {
          if (a.kind === 'begin') {
            const t: Tx = { xid: nextXid++, ids: [], state: 'open' };
            for (let i = 0; i < a.n; i++) t.ids.push(nextId++);
            txs.push(t);
          } else if (a.kind === 'end') {
            const open = txs.filter((t) => t.state === 'open');
            if (open.length) open[a.pick % open.length].state = a.commit ? 'committed' : 'aborted';
          } else {
            now += a.dt;
            read(a.limit);
          }
        }
        // everything ends; reads until the position is settled
        for (const t of txs) if (t.state === 'open') t.state = 'committed';
        for (let i = 0; i < 50 && (p.gaps.length > 0 || p.hwm < nextId - 1); i++) {
          now += 500;
          read(5);
        }
        const committed = txs
          .filter((t) => t.state === 'committed')
          .flatMap((t) => t.ids)
          .sort((a, b) => a - b);
        expect([...produced].sort((a, b) => a - b)).toEqual(committed);
        expect(abandonedIds.filter((id) => committed.includes(id))).toEqual([]);
        expect(p.gaps).toEqual([]);
      }),
      { numRuns: 500 },
    );
  });
});
