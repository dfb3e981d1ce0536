import type { Pool } from 'pg';
import { assertSchemaName } from '@flaglens/persistence';
import { SEARCH_INDEXES } from '@flaglens/projections';

/** Memory for one index build: a trigram index over millions of rows is built in far fewer passes with it. */
const BUILD_MEMORY = '512MB';

/**
 * Drops the search indexes of a version being built, keeping their definitions in the version's own
 * `deferred_indexes`, so a rebuild resumed by another process still builds them.
 */
export async function deferSearchIndexes(pool: Pool, schema: string): Promise<void> {
  const s = assertSchemaName(schema);
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    await client.query(
      `CREATE TABLE ${s}.deferred_indexes (name text PRIMARY KEY, definition text NOT NULL)`,
    );
    await client.query(
      `INSERT INTO ${s}.deferred_indexes (name, definition)
       SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = $1 AND indexname = ANY($2)`,
      [s, SEARCH_INDEXES],
    );
    for (const name of SEARCH_INDEXES) await client.query(`DROP INDEX IF EXISTS ${s}.${name}`);
    await client.query('COMMIT');
  } catch (e) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw e;
  } finally {
    client.release();
  }
}

/**
 * Builds the indexes `deferSearchIndexes` left out of a version, each in a transaction with the removal of its
 * definition (a build cut short is built again by the next call); returns their names. None deferred: none.
 */
export async function buildDeferredIndexes(pool: Pool, schema: string): Promise<string[]> {
  const s = assertSchemaName(schema);
  const [{ deferred }] = (
    await pool.query<{ deferred: boolean }>(`SELECT to_regclass($1) IS NOT NULL AS deferred`, [
      `${s}.deferred_indexes`,
    ])
  ).rows;
  if (!deferred) return [];
  const { rows } = await pool.query<{ name: string; definition: string }>(
    `SELECT name, definition FROM ${s}.deferred_indexes ORDER BY name`,
  );
  const client = await pool.connect();
  try {
    for (const { name, definition } of rows) {
      await client.query('BEGIN');
      try {
        await client.query(`SET LOCAL maintenance_work_mem = '${BUILD_MEMORY}'`);
        await client.query(definition);
        await client.query(`DELETE FROM ${s}.deferred_indexes WHERE name = $1`, [name]);
        await client.query('COMMIT');
      } catch (e) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw e;
      }
    }
    await client.query(`DROP TABLE ${s}.deferred_indexes`);
  } finally {
    client.release();
  }
  return rows.map((r) => r.name);
}
