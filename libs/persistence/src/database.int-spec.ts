import { Client } from 'pg';
import { createTestDatabase, type TestDatabase } from '@flaglens/testing/support/test-database';
import { Database } from './database';

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
});
