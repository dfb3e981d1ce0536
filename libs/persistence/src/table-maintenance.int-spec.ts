import { Client } from 'pg';
import { createTestDatabase, type TestDatabase } from '@flaglens/testing/support/test-database';
import { waitFor } from '@flaglens/testing/support/wait-for';
import { keepTables, serverKeepsTables, tablesDue, TABLE_MAINTENANCE_LOCK } from './table-maintenance';

describe('table maintenance (real Postgres)', () => {
  let tdb: TestDatabase;
  let c: Client;
  const estimate = async (sql: string) => {
    const { rows } = await c.query<{ 'QUERY PLAN': [{ Plan: { 'Plan Rows': number } }] }>(
      `EXPLAIN (FORMAT JSON) ${sql}`,
    );
    return rows[0]['QUERY PLAN'][0].Plan['Plan Rows'];
  };
  const stats = async () =>
    (
      await c.query<{ analyzed: boolean; vacuumed: boolean; dead: string }>(
        `SELECT last_analyze IS NOT NULL AS analyzed, last_vacuum IS NOT NULL AS vacuumed, n_dead_tup::text AS dead
           FROM pg_stat_user_tables WHERE schemaname = 'flaglens_v1' AND relname = 'maintained'`,
      )
    ).rows[0];

  beforeAll(async () => {
    tdb = await createTestDatabase('table_maintenance');
    c = new Client({ connectionString: tdb.url });
    await c.connect();
    // the server's own autovacuum (where it is on) leaves this table to the test
    await c.query(
      `CREATE TABLE flaglens_v1.maintained (id int PRIMARY KEY, n int NOT NULL) WITH (autovacuum_enabled = false)`,
    );
    // 20,000 rows in ten values of n, then half of them updated: 10,000 dead rows
    const writer = new Client({ connectionString: tdb.url });
    await writer.connect();
    await writer.query(
      `INSERT INTO flaglens_v1.maintained SELECT i, i % 10 FROM generate_series(1, 20000) i`,
    );
    await writer.query(`UPDATE flaglens_v1.maintained SET n = n WHERE id % 2 = 0`);
    await writer.end(); // its counters reach the statistics collector when its session ends
  });
  afterAll(async () => {
    await c?.end();
    await tdb?.drop();
  });

  it('reports whether the server keeps the tables itself', async () => {
    const { rows } = await c.query<{ on: boolean }>(`SELECT current_setting('autovacuum') = 'on' AS on`);
    expect(await serverKeepsTables(c)).toBe(rows[0].on);
  });

  it('analyzes and vacuums a table due by autovacuum’s rules, then finds it due for nothing', async () => {
    const due = await waitFor('the writes counted', async () =>
      (await tablesDue(c)).find((d) => d.schema === 'flaglens_v1' && d.table === 'maintained'),
    );
    expect(due).toMatchObject({ analyze: true, vacuum: true });
    // the planner without statistics: a default guess, far from the 2,000 rows of one value
    const guessed = await estimate(`SELECT * FROM flaglens_v1.maintained WHERE n = 3`);
    expect(Math.abs(guessed - 2000)).toBeGreaterThan(500);

    // another maintainer's round in progress: this one waits for the next look
    const other = new Client({ connectionString: tdb.url });
    await other.connect();
    try {
      await other.query('SELECT pg_advisory_lock($1)', [TABLE_MAINTENANCE_LOCK]);
      expect(await keepTables(c)).toBeNull();
      expect(await stats()).toMatchObject({ analyzed: false, vacuumed: false });
    } finally {
      await other.end();
    }

    const done = await keepTables(c);
    expect(done).toContainEqual(
      expect.objectContaining({ schema: 'flaglens_v1', table: 'maintained', command: 'VACUUM (ANALYZE)' }),
    );
    expect(await stats()).toMatchObject({ analyzed: true, vacuumed: true, dead: '0' });
    expect(await estimate(`SELECT * FROM flaglens_v1.maintained WHERE n = 3`)).toBeGreaterThan(1500);
    expect(await estimate(`SELECT * FROM flaglens_v1.maintained WHERE n = 3`)).toBeLessThan(2500);
    // the session's throttle is reset for the connection's next user
    expect(
      (await c.query<{ vacuum_cost_delay: string }>(`SHOW vacuum_cost_delay`)).rows[0].vacuum_cost_delay,
    ).toBe('0');
    // nothing changed since: nothing due
    expect((await tablesDue(c)).find((d) => d.table === 'maintained')).toBeUndefined();
  });
});
