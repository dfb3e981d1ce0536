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
    // the statistics first, then the vacuum (its rows dead: with its indexes)
    const mine = (done ?? []).filter((d) => d.schema === 'flaglens_v1' && d.table === 'maintained');
    expect(mine.map((d) => d.command)).toEqual(['ANALYZE', 'VACUUM']);
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

  it("vacuums an append-only table without its indexes: a GIN index's pending list stays its writers'", async () => {
    // a GIN index whose inserted entries wait in its pending list (fastupdate, the 4 MB default limit); a
    // VACUUM with its indexes would merge them (a VACUUM run by hand: also those written while it runs)
    await c.query(
      `CREATE TABLE flaglens_v1.appended (id int PRIMARY KEY, words text[] NOT NULL) WITH (autovacuum_enabled = false);
       CREATE INDEX appended_words_idx ON flaglens_v1.appended USING gin (words)`,
    );
    const writer = new Client({ connectionString: tdb.url });
    await writer.connect();
    await writer.query(
      `INSERT INTO flaglens_v1.appended SELECT i, ARRAY['w' || i % 97, 'v' || i % 13] FROM generate_series(1, 5000) i`,
    );
    await writer.end();
    const due = await waitFor('the inserts counted', async () =>
      (await tablesDue(c)).find((d) => d.schema === 'flaglens_v1' && d.table === 'appended' && d.vacuum),
    );
    expect(due).toMatchObject({ vacuum: true, indexCleanup: false });
    const done = ((await keepTables(c)) ?? []).filter((d) => d.table === 'appended').map((d) => d.command);
    expect(done).toEqual(['ANALYZE', 'VACUUM (INDEX_CLEANUP OFF)']);
    // the vacuum left the pending list as it was: merging it now finds its pages
    const [{ merged }] = (
      await c.query<{ merged: number }>(
        `SELECT gin_clean_pending_list('flaglens_v1.appended_words_idx') AS merged`,
      )
    ).rows;
    expect(Number(merged)).toBeGreaterThan(0);
    // and the table's visibility map is set: its rows are read from its index alone
    const { rows } = await c.query<{ vacuumed: boolean }>(
      `SELECT last_vacuum IS NOT NULL AS vacuumed FROM pg_stat_user_tables
        WHERE schemaname = 'flaglens_v1' AND relname = 'appended'`,
    );
    expect(rows[0].vacuumed).toBe(true);
    await c.query(`DROP TABLE flaglens_v1.appended`);
  });
});
