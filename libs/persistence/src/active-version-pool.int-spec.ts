import { createTestDatabase, type TestDatabase } from '@flaglens/testing/support/test-database';
import { ActiveVersionPool, rowsVia } from './active-version-pool';

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

  it('prepares each SQL text once per connection when asked to, and plans nothing again on reuse', async () => {
    const reads = new ActiveVersionPool(tdb.url, 1);
    try {
      await reads.refresh();
      const sql = 'SELECT $1::int + 1 AS n';
      const other = 'SELECT $1::text AS s';
      const prepared = rowsVia(reads, { prepared: true });
      expect(await prepared.query(sql, [1])).toEqual([{ n: 2 }]);
      expect(await prepared.query(sql, [41])).toEqual([{ n: 42 }]);
      expect(await prepared.query(other, ['x'])).toEqual([{ s: 'x' }]);
      // one connection: it holds one statement per text, whatever the parameters
      const held = await reads
        .pool()
        .query<{ statement: string }>('SELECT statement FROM pg_prepared_statements ORDER BY statement');
      expect(held.rows.map((r) => r.statement)).toEqual([other, sql].sort());
      // unnamed statements (the default) leave nothing behind
      await rowsVia(reads).query('SELECT $1::int AS k', [3]);
      const after = await reads.pool().query('SELECT count(*)::int AS n FROM pg_prepared_statements');
      expect(after.rows).toEqual([{ n: 2 }]);
    } finally {
      await reads.close();
    }
  });
});
