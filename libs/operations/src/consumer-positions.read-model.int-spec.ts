import type { Pool } from 'pg';
import { openPool } from '@flaglens/persistence';
import { createTestDatabase, type TestDatabase } from '@flaglens/testing/support/test-database';
import {
  appliedOf,
  ConsumerPositionsReadModel,
  positionsIn,
  rebuildGroupOf,
} from './consumer-positions.read-model';

/** The one reader of the consumer groups' stored positions, against real Postgres. */
describe('ConsumerPositionsReadModel', () => {
  let db: TestDatabase;
  let pool: Pool;
  let reads: ConsumerPositionsReadModel;

  beforeAll(async () => {
    db = await createTestDatabase('consumer_positions');
    pool = openPool({ connectionString: db.url, max: 2 });
    reads = new ConsumerPositionsReadModel(() => pool.connect());
  });
  afterAll(async () => {
    await pool?.end();
    await db?.drop();
  });

  it('nothing stored: the active version, no positions, no rebuild', async () => {
    expect(await reads.read('g', 't')).toEqual({
      active: { version: 1, schema: 'flaglens_v1' },
      positions: [],
      rebuild: null,
    });
  });

  it("the group's positions in the active version, not another group's or topic's", async () => {
    await db.query(
      `INSERT INTO flaglens_v1.projector_offsets (group_id, topic, partition, next_offset, last_event_at, updated_at)
       VALUES ('g', 't', 1, 40, '2026-11-01T00:00:00Z', now() - interval '90 seconds'),
              ('g', 't', 0, 7, NULL, now()),
              ('other', 't', 0, 99, NULL, now()),
              ('g', 'other', 0, 99, NULL, now())`,
    );
    const { positions, rebuild } = await reads.read('g', 't');
    expect(positions.map(({ idleSeconds: _, ...p }) => p)).toEqual([
      { partition: 0, nextOffset: 7, lastEventAt: null, updatedAt: expect.any(String) },
      {
        partition: 1,
        nextOffset: 40,
        lastEventAt: '2026-11-01T00:00:00.000Z',
        updatedAt: expect.any(String),
      },
    ]);
    expect(positions[1].idleSeconds).toBeGreaterThanOrEqual(89);
    expect(appliedOf(positions)).toBe(47);
    expect(rebuild).toBeNull();
  });

  it("a rebuild: its version before its tables exist (no positions), then its group's positions there", async () => {
    await db.query(
      `INSERT INTO public.projection_versions (version, schema_name, status) VALUES (2, 'flaglens_v2', 'building')`,
    );
    expect((await reads.read('g', 't')).rebuild).toEqual({
      version: 2,
      schema: 'flaglens_v2',
      positions: [],
    });
    await db.query(`CREATE SCHEMA flaglens_v2`);
    await db.query(
      `CREATE TABLE flaglens_v2.projector_offsets (LIKE flaglens_v1.projector_offsets INCLUDING ALL)`,
    );
    await db.query(
      `INSERT INTO flaglens_v2.projector_offsets (group_id, topic, partition, next_offset)
       VALUES ($1, 't', 0, 5), ($1, 't', 1, 6), ('g', 't', 0, 1000)`,
      [rebuildGroupOf('g', 2)],
    );
    const { rebuild, positions } = await reads.read('g', 't');
    expect(rebuild).toEqual({
      version: 2,
      schema: 'flaglens_v2',
      positions: [
        { partition: 0, nextOffset: 5 },
        { partition: 1, nextOffset: 6 },
      ],
    });
    // the live group's are still the active version's
    expect(appliedOf(positions)).toBe(47);
    expect(await positionsIn(pool, 'flaglens_v2', 'g', 't')).toEqual(new Map([[0, 1000]]));
  });

  it('with a timeout, a table held by a lock fails the read instead of waiting; the pool goes on', async () => {
    const locker = await pool.connect();
    try {
      await locker.query('BEGIN');
      await locker.query('LOCK TABLE flaglens_v1.projector_offsets IN ACCESS EXCLUSIVE MODE');
      const t0 = Date.now();
      await expect(reads.read('g', 't', { timeoutMs: 200 })).rejects.toThrow(
        /lock timeout|statement timeout/,
      );
      expect(Date.now() - t0).toBeLessThan(5_000);
      await locker.query('ROLLBACK');
    } finally {
      locker.release();
    }
    expect(appliedOf((await reads.read('g', 't', { timeoutMs: 1000 })).positions)).toBe(47);
  });
});
