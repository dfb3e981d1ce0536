import { Client } from 'pg';
import { createTestDatabase, type TestDatabase } from '@flaglens/testing/support/test-database';
import { Database, PREPARED_MAX_ARRAY, PREPARED_PER_CONNECTION } from './database';

describe('Database (real Postgres)', () => {
  let tdb: TestDatabase;
  beforeAll(async () => {
    tdb = await createTestDatabase('database');
  });
  afterAll(async () => {
    await tdb?.drop();
  });

  it('a checked-out client whose connection is lost fails its next query and crashes nothing', async () => {
    const db = new Database({ url: tdb.url });
    const c = await db.connect();
    const pid = Number((await c.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0].pid);
    const admin = new Client({ connectionString: tdb.url });
    await admin.connect();
    try {
      // the server ends the backend while the client is checked out and idle: pg emits 'error' on the client
      await admin.query('SELECT pg_terminate_backend($1)', [pid]);
      await new Promise((r) => setTimeout(r, 300));
      await expect(c.query('SELECT 1')).rejects.toThrow();
      c.release(true);
      // the pool goes on with a new connection
      expect(await db.query<{ one: number }>('SELECT 1 AS one')).toEqual([{ one: 1 }]);
    } finally {
      await admin.end();
      await db.end();
    }
  });

  it('prepared: each statement is parsed and planned once per connection, with a generic plan', async () => {
    const db = new Database({ url: tdb.url, max: 1, prepared: true });
    try {
      await db.query('CREATE TABLE IF NOT EXISTS prepared_t (id int PRIMARY KEY, v text)');
      const insert = 'INSERT INTO prepared_t (id, v) SELECT * FROM unnest($1::int[], $2::text[])';
      for (let i = 0; i < 8; i++) await db.query(insert, [[i], [`v${i}`]]);
      const kept = await db.query<{ statement: string; generic_plans: string; custom_plans: string }>(
        `SELECT statement, generic_plans, custom_plans FROM pg_prepared_statements WHERE statement = $1`,
        [insert],
      );
      // eight executions, one statement, no custom plan (planning for each set of parameters is what it saves)
      expect(kept).toEqual([{ statement: insert, generic_plans: '8', custom_plans: '0' }]);
      expect(await db.query('SELECT count(*)::int AS n FROM prepared_t')).toEqual([{ n: 8 }]);
      // the same statement with a large array runs unnamed, planned for its size (nothing more is kept)
      const many = Array.from({ length: PREPARED_MAX_ARRAY + 1 }, (_, i) => 1000 + i);
      await db.query(insert, [many, many.map(String)]);
      const after = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM pg_prepared_statements');
      expect(after).toEqual([{ n: 2 }]); // `insert` and the lookup of pg_prepared_statements above
      // a statement without parameters runs as before (several commands in one text stay allowed)
      const both = (await db.pool.query('SELECT 1 AS one; SELECT 2 AS two')) as unknown as {
        rows: unknown[];
      }[];
      expect(both.map((r) => r.rows)).toEqual([[{ one: 1 }], [{ two: 2 }]]);
      // a statement that fails to parse leaves the connection usable and is not kept
      await expect(db.query('SELEC $1::int', [1])).rejects.toThrow(/syntax/);
      expect(await db.query<{ n: number }>('SELECT $1::int AS n', [5])).toEqual([{ n: 5 }]);
      // a table changed under a kept plan: Postgres plans it again
      await db.query('ALTER TABLE prepared_t ADD COLUMN w int DEFAULT 7');
      await db.query(insert, [[100], ['x']]);
      expect(await db.query('SELECT w FROM prepared_t WHERE id = $1', [100])).toEqual([{ w: 7 }]);
    } finally {
      await db.end();
    }
  });

  it('prepared: statements built anew per call stop being kept at the cap; they still run', async () => {
    const db = new Database({ url: tdb.url, max: 1, prepared: true });
    try {
      for (let i = 0; i < PREPARED_PER_CONNECTION + 20; i++)
        expect(await db.query<{ n: number }>(`SELECT $1::int + ${i} AS n`, [1])).toEqual([{ n: 1 + i }]);
      const [{ n }] = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM pg_prepared_statements');
      expect(n).toBe(PREPARED_PER_CONNECTION);
    } finally {
      await db.end();
    }
  });
});
