import { Client } from 'pg';

/**
 * Drops database `name` once no connection to it is left, or after `waitMs` with those left forced out (see
 * `TestDatabase.drop`). `adminUrl` names another database of the same server.
 */
export async function dropDatabaseWhenLeft(adminUrl: string, name: string, waitMs = 5000): Promise<void> {
  const a = new Client({ connectionString: adminUrl });
  await a.connect();
  try {
    const until = Date.now() + waitMs;
    for (;;) {
      const left = await a.query('SELECT 1 FROM pg_stat_activity WHERE datname = $1 LIMIT 1', [name]);
      if (left.rowCount === 0 || Date.now() >= until) break;
      await new Promise((r) => setTimeout(r, 25));
    }
    await a.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  } finally {
    await a.end();
  }
}
