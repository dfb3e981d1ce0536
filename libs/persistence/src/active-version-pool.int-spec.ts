import { createTestDatabase, type TestDatabase } from '@flaglens/testing/support/test-database';
import { ActiveVersionPool } from './active-version-pool';

describe('ActiveVersionPool (real Postgres)', () => {
  let tdb: TestDatabase;
  beforeAll(async () => {
    tdb = await createTestDatabase('active_pool');
  });
  afterAll(async () => {
    await tdb?.drop();
  });

  it('looks the active version up again and again without adding to its pool (no listener per refresh)', async () => {
    const reads = new ActiveVersionPool(tdb.url, 2);
    try {
      expect(await reads.refresh()).toBe(true);
      const pool = reads.pool();
      const listeners = pool.listenerCount('error');
      // the api refreshes on a timer for as long as it runs
      for (let i = 0; i < 50; i++) expect(await reads.refresh()).toBe(false);
      expect(reads.pool()).toBe(pool);
      expect(pool.listenerCount('error')).toBe(listeners);
      expect(listeners).toBe(1);
      expect((await pool.query<{ one: number }>('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
    } finally {
      await reads.close();
    }
  });
});
