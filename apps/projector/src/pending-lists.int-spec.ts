import { Client } from 'pg';
import { loadConfig } from '@flaglens/config';
import { Database } from '@flaglens/persistence';
import { createTestDatabase, type TestDatabase } from '@flaglens/testing/support/test-database';
import { waitFor } from '@flaglens/testing/support/wait-for';
import type { ConsumerProgressMonitor } from './consumer-progress.monitor';
import { PendingListFlusher, PENDING_LISTS_LOOK_MS } from './pending-lists.service';

describe('the projector flushes the search index’s pending list beside the batches (real Postgres)', () => {
  let tdb: TestDatabase;
  let c: Client;
  let db: Database;
  /** what the flusher reads of the projector's progress: when its last batch committed */
  const progress = { lastBatchAt: 0 };
  const pendingPages = async () =>
    (
      await c.query<{ pages: number }>(
        `SELECT pending_pages AS pages FROM public.pgstatginindex('flaglens_v1.event_log_search_text_trgm_idx')`,
      )
    ).rows[0].pages;
  /** rows of the log whose search text enters the trigram index's pending list (ids from `first`) */
  const write = (first: number, n: number) =>
    c.query(
      `INSERT INTO flaglens_v1.event_log (id, created_at, type, created_by, body, data_text)
       SELECT i, now(), 'feature-created', 'admin', '{}', '{"name": "flag-' || i || '", "project": "team-' || i % 7 || '"}'
         FROM generate_series($1::bigint, $1::bigint + $2 - 1) i`,
      [first, n],
    );

  beforeAll(async () => {
    tdb = await createTestDatabase('pending_lists');
    c = new Client({ connectionString: tdb.url });
    await c.connect();
    await c.query(`CREATE EXTENSION IF NOT EXISTS pgstattuple SCHEMA public`);
    db = new Database({ url: tdb.url, max: 2 });
  });
  afterAll(async () => {
    await c?.end();
    await db?.end();
    await tdb?.drop();
  });

  const flusher = (maintenance: 'auto' | 'off') =>
    new PendingListFlusher(
      db,
      loadConfig({ ...process.env, PROJECTOR_TABLE_MAINTENANCE: maintenance }),
      progress as ConsumerProgressMonitor,
    );

  it('merges the list at its first look and after each committed batch, not while none commits', async () => {
    // a list left from before the start: flushed at the first look
    await write(1, 1000);
    expect(await pendingPages()).toBeGreaterThan(0);
    const f = flusher('auto');
    f.onApplicationBootstrap();
    try {
      await waitFor('the list flushed at start', async () => (await pendingPages()) === 0 || undefined);
      // no batch committed since: the writers' entries stay in the list
      await write(1001, 1000);
      expect(await pendingPages()).toBeGreaterThan(0);
      await new Promise((r) => setTimeout(r, 3 * PENDING_LISTS_LOOK_MS));
      expect(await pendingPages()).toBeGreaterThan(0);
      // a batch committed: the next look flushes the list into the index
      progress.lastBatchAt = Date.now();
      await waitFor('the pending list flushed', async () => (await pendingPages()) === 0 || undefined);
      // the rows are found through the index proper
      await c.query('SET enable_seqscan = off');
      const { rows } = await c.query<{ n: string }>(
        `SELECT count(*)::text AS n FROM flaglens_v1.event_log WHERE data_text ILIKE '%team-3"%'`,
      );
      await c.query('RESET enable_seqscan');
      expect(Number(rows[0].n)).toBe(286); // i % 7 = 3 for 286 of 1..2000
      // another batch: flushed again
      await write(2001, 500);
      progress.lastBatchAt = Date.now() + 1;
      await waitFor('the second batch flushed', async () => (await pendingPages()) === 0 || undefined);
    } finally {
      await f.beforeApplicationShutdown();
    }
  });

  it('does nothing with PROJECTOR_TABLE_MAINTENANCE=off', async () => {
    const f = flusher('off');
    f.onApplicationBootstrap();
    try {
      await write(3001, 500);
      progress.lastBatchAt = Date.now() + 2;
      await new Promise((r) => setTimeout(r, 3 * PENDING_LISTS_LOOK_MS));
      expect(await pendingPages()).toBeGreaterThan(0);
    } finally {
      await f.beforeApplicationShutdown();
    }
  });
});
