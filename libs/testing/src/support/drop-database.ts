import { Client } from 'pg';

/** How long the connections to a database must stay as they are before those left are taken as left open. */
const SETTLED_MS = 250;

/**
 * Drops database `name` once its connections have left; those that stay (left open by the test, not closing)
 * are forced out once their number has not changed for SETTLED_MS, or after `waitMs` at the latest (see
 * `TestDatabase.drop`). `adminUrl` names another database of the same server.
 */
export async function dropDatabaseWhenLeft(adminUrl: string, name: string, waitMs = 5000): Promise<void> {
  const a = new Client({ connectionString: adminUrl });
  await a.connect();
  try {
    const until = Date.now() + waitMs;
    let count = -1;
    let since = Date.now();
    for (;;) {
      const left = await a.query<{ n: number }>(
        'SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1',
        [name],
      );
      const n = left.rows[0].n;
      if (n !== count) [count, since] = [n, Date.now()];
      if (n === 0 || Date.now() - since >= SETTLED_MS || Date.now() >= until) break;
      await new Promise((r) => setTimeout(r, 20));
    }
    await a.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  } finally {
    await a.end();
  }
}
