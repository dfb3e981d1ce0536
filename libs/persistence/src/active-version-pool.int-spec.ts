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

  it('reads with JIT compilation off, whatever the server is set to', async () => {
    const reads = new ActiveVersionPool(tdb.url, 1);
    try {
      await reads.refresh();
      const pool = reads.pool();
      expect((await pool.query<{ jit: string }>('SHOW jit')).rows).toEqual([{ jit: 'off' }]);
      // a statement estimated far above jit_above_cost (100,000 by default) is planned without compilation
      const plan = await pool.query<{ 'QUERY PLAN': string }>(
        'EXPLAIN SELECT sum(g) FROM generate_series(1, 50000000) g',
      );
      expect(plan.rows.map((r) => r['QUERY PLAN']).join('\n')).not.toMatch(/JIT/);
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

  it('runs a statement that failed on a version switched out (and dropped) once more, on the active one', async () => {
    const reads = new ActiveVersionPool(tdb.url, 1);
    try {
      await reads.refresh();
      expect(reads.schema).toBe('flaglens_v1');
      const prepared = rowsVia(reads, { prepared: true });
      await tdb.query(`CREATE TABLE flaglens_v1.marker AS SELECT 1 AS v`);
      expect(await prepared.query('SELECT v FROM marker')).toEqual([{ v: 1 }]);
      // a rebuild's switch and the drop of the old version, of which the pool has not learned
      await tdb.query(`CREATE SCHEMA flaglens_v2`);
      await tdb.query(`CREATE TABLE flaglens_v2.marker AS SELECT 2 AS v`);
      await tdb.query(
        `INSERT INTO projection_versions (version, schema_name, status) VALUES (2, 'flaglens_v2', 'building')`,
      );
      await tdb.query(`UPDATE projection_versions SET status = 'retired' WHERE version = 1`);
      await tdb.query(`UPDATE projection_versions SET status = 'active' WHERE version = 2`);
      await tdb.query(`DROP SCHEMA flaglens_v1 CASCADE`);
      expect(reads.schema).toBe('flaglens_v1');
      expect(await prepared.query('SELECT v FROM marker')).toEqual([{ v: 2 }]);
      expect(await rowsVia(reads).query('SELECT v FROM marker')).toEqual([{ v: 2 }]);
      expect(reads.schema).toBe('flaglens_v2');
      // a failure on the active version is the statement's own: as it is
      await expect(rowsVia(reads).query('SELECT v FROM no_such_table')).rejects.toMatchObject({
        code: '42P01',
      });
    } finally {
      await reads.close();
    }
  });
});
