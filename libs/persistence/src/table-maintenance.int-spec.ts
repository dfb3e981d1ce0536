import { Client } from 'pg';
import { createTestDatabase, type TestDatabase } from '@flaglens/testing/support/test-database';
import { waitFor } from '@flaglens/testing/support/wait-for';
import {
  flushPendingLists,
  keepTables,
  PENDING_LISTS_LOCK,
  serverKeepsTables,
  tablesDue,
  TABLE_MAINTENANCE_LOCK,
} from './table-maintenance';

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

  it('flushes the pending lists of the GIN indexes it owns from its own connection, each in turn', async () => {
    // pgstattuple (a contrib module, shipped with Postgres) reads the index's pending pages
    await c.query(`CREATE EXTENSION IF NOT EXISTS pgstattuple SCHEMA public`);
    await c.query(
      `CREATE TABLE flaglens_v1.searched (id int PRIMARY KEY, text text NOT NULL) WITH (autovacuum_enabled = false);
       CREATE INDEX searched_text_idx ON flaglens_v1.searched USING gin (text public.gin_trgm_ops)
         WITH (gin_pending_list_limit = 65536);
       CREATE TABLE flaglens_v1.tagged (id int PRIMARY KEY, words text[] NOT NULL);
       CREATE INDEX tagged_words_idx ON flaglens_v1.tagged USING gin (words) WITH (fastupdate = off)`,
    );
    const pendingPages = async () =>
      (
        await c.query<{ pages: number }>(
          `SELECT pending_pages AS pages FROM public.pgstatginindex('flaglens_v1.searched_text_idx')`,
        )
      ).rows[0].pages;
    const writer = new Client({ connectionString: tdb.url });
    await writer.connect();
    await writer.query(
      `INSERT INTO flaglens_v1.searched SELECT i, 'flag-' || i || ' of team-' || i % 7 FROM generate_series(1, 3000) i;
       INSERT INTO flaglens_v1.tagged SELECT i, ARRAY['w' || i % 97] FROM generate_series(1, 300) i`,
    );
    // the writers left their entries in the list (under its 64 MB limit)
    expect(await pendingPages()).toBeGreaterThan(0);

    // another flusher at work: this one waits for the next look, and flushes nothing
    const other = new Client({ connectionString: tdb.url });
    await other.connect();
    await other.query(`SELECT pg_advisory_lock($1)`, [PENDING_LISTS_LOCK]);
    expect(await flushPendingLists(c)).toBeNull();
    expect(await pendingPages()).toBeGreaterThan(0);
    await other.end();

    const done = (await flushPendingLists(c)) ?? [];
    const searched = done.find((d) => d.index === 'searched_text_idx');
    expect(searched).toMatchObject({ schema: 'flaglens_v1', index: 'searched_text_idx' });
    expect(searched!.pages).toBeGreaterThan(0);
    // an index without a pending list is flushed as a no-op
    expect(done.find((d) => d.index === 'tagged_words_idx')).toMatchObject({ pages: 0 });
    expect(await pendingPages()).toBe(0);
    // the entries are in the index proper: the search finds them through it, rows written meanwhile included
    await writer.query(`INSERT INTO flaglens_v1.searched VALUES (3001, 'flag-3001 of team-9')`);
    await writer.end();
    await c.query('SET enable_seqscan = off');
    const { rows } = await c.query<{ n: string }>(
      `SELECT count(*)::text AS n FROM flaglens_v1.searched WHERE text ILIKE '%team-6%' OR text ILIKE '%team-9%'`,
    );
    await c.query('RESET enable_seqscan');
    // i % 7 = 6 for 428 of 1..3000, and the row written since
    expect(Number(rows[0].n)).toBe(429);
    // the next flush finds the one row written since
    const again = ((await flushPendingLists(c)) ?? []).find((d) => d.index === 'searched_text_idx');
    expect(again!.pages).toBeGreaterThan(0);
    expect(((await flushPendingLists(c)) ?? []).find((d) => d.index === 'searched_text_idx')!.pages).toBe(0);
    await c.query(`DROP TABLE flaglens_v1.searched, flaglens_v1.tagged`);
  });
});
