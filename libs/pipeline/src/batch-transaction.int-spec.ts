import { Database } from '@flaglens/persistence';
import { createTestDatabase, type TestDatabase } from '@flaglens/testing/support/test-database';
import { BatchTransactions, OffsetConflictError, type PositionMove } from './batch-transaction';
import type { StageCost } from './stage-cost';
import { StageTimer } from './stage-timing';

/** The batch transaction and its offset guard (real Postgres). */
describe('BatchTransactions', () => {
  let db: TestDatabase;
  let ds: Database;

  beforeAll(async () => {
    db = await createTestDatabase('batch_tx');
    ds = new Database({ url: db.url, max: 2 });
  });
  afterAll(async () => {
    await ds.end();
    await db.drop();
  });

  const stored = async (group: string, partition: number) =>
    (
      await db.query<{ next_offset: string }>(
        `SELECT next_offset FROM projector_offsets WHERE group_id = '${group}' AND partition = ${partition}`,
      )
    ).map((r) => Number(r.next_offset));

  it('moves a position only from the offset expected, with the writes of its transaction', async () => {
    const tx = new BatchTransactions(ds, 'g-guard');
    expect(await tx.loadPosition('t', 0)).toBe(0);
    const move = { topic: 't', partition: 0, expectedOffset: 0, nextOffset: 5, lastEventAt: null };
    await tx.run((c) => tx.advance(c, move));
    expect(await stored('g-guard', 0)).toEqual([5]);
    expect(await tx.loadPosition('t', 0)).toBe(5);

    // a consumer that still expects 0 (it lost the partition, or is stale) writes nothing
    const lost = tx.run(async (c) => {
      await c.query(`INSERT INTO public.dead_letters (topic, partition, "offset", reason_code, reason)
                     VALUES ('t', 0, 99, 'malformed-json', 'written with a stale position')`);
      await tx.advance(c, move);
    });
    await expect(lost).rejects.toBeInstanceOf(OffsetConflictError);
    await expect(lost).rejects.toMatchObject({ topic: 't', partition: 0, expected: 0 });
    expect(await stored('g-guard', 0)).toEqual([5]);
    expect(await db.query(`SELECT 1 FROM public.dead_letters WHERE "offset" = 99`)).toEqual([]);
  });

  it('writes the active version, holding the switch lock shared, and a fixed version when told', async () => {
    const [active] = await db.query<{ schema_name: string }>(
      `SELECT schema_name FROM public.projection_versions WHERE status = 'active'`,
    );
    const live = new BatchTransactions(ds, 'g-version');
    const seen = await live.run(async (c) => {
      const r = await c.query<{ path: string; locks: string }>(
        `SELECT current_setting('search_path') AS path,
                (SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND mode = 'ShareLock'
                   AND pid = pg_backend_pid())::text AS locks`,
      );
      return r.rows[0];
    });
    expect(seen).toEqual({ path: `${active.schema_name}, public`, locks: '1' });
    const fixed = new BatchTransactions(ds, 'g-version', { kind: 'version', schema: active.schema_name });
    expect(await fixed.loadPosition('t', 3)).toBe(0);
  });

  it('is driven stage by stage by its caller, each stage timed by wrapping it (a real connection)', async () => {
    const tx = new BatchTransactions(ds, 'g-timed');
    const seen: [string, StageCost][] = [];
    const timer = new StageTimer((stage, _s, cost) => seen.push([stage, cost]));
    const stage = timer.stages({
      begin: (c) => tx.begin(c),
      offsets: (c, move: PositionMove) => tx.advance(c, move),
      commit: (c) => tx.commit(c),
    });
    await tx.loadPosition('t', 1);
    const c = await ds.connect();
    try {
      await stage.begin(c);
      await stage.offsets(c, {
        topic: 't',
        partition: 1,
        expectedOffset: 0,
        nextOffset: 2,
        lastEventAt: null,
      });
      await stage.commit(c);
    } finally {
      c.release();
    }
    expect(seen.map(([name]) => name)).toEqual(['begin', 'offsets', 'commit']);
    for (const [, cost] of seen) expect(cost.seconds).toBeGreaterThan(0);
    // a local server: its backend's CPU is read too (a remote one: undefined, not measured)
    const local = seen[0][1].dbCpuSeconds !== undefined;
    for (const [, cost] of seen) expect(cost.dbCpuSeconds !== undefined).toBe(local);
    expect(await stored('g-timed', 1)).toEqual([2]);
  });
});
