import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { activeVersion, assertSchemaName, migrateDatabase } from '@flaglens/persistence';
import { META_MIGRATIONS, PROJECTION_MIGRATIONS, PROJECTION_ROUTINES } from '../../../../migrations';

const BASE_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/flaglens';

export interface TestDatabase {
  url: string;
  name: string;
  query<T = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<T[]>;
  /** Points `query` at the projection version active now (after a rebuild switched it). */
  useActive(): Promise<void>;
  drop(): Promise<void>;
}

function withDb(url: string, db: string): string {
  const u = new URL(url);
  u.pathname = `/${db}`;
  return u.toString();
}

/** The schema of the active projection version (for harnesses that read projection tables by name). */
export async function activeSchema(db: Parameters<typeof activeVersion>[0]): Promise<string> {
  const active = await activeVersion(db);
  if (!active) throw new Error('no active projection version');
  return assertSchemaName(active.schema);
}

/**
 * A fresh, migrated database for one test file (real Postgres), dropped afterwards; on the server of
 * DATABASE_URL, or of `baseUrl` (the chaos run's own cluster).
 */
export async function createTestDatabase(label: string, baseUrl = BASE_URL): Promise<TestDatabase> {
  const name = `flaglens_t_${label.replace(/[^a-z0-9]/gi, '_').toLowerCase()}_${randomBytes(3).toString('hex')}`;
  const admin = new Client({ connectionString: withDb(baseUrl, 'postgres') });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = withDb(baseUrl, name);
  const client = new Client({ connectionString: url });
  // a Postgres restart (chaos run) ends the connection: later queries fail; the process must not crash
  client.on('error', () => undefined);
  await client.connect();
  await migrateDatabase(url, client, META_MIGRATIONS, PROJECTION_MIGRATIONS, PROJECTION_ROUTINES);
  // unqualified names resolve in the active projection version, then public
  const useActive = async () => {
    const active = await activeVersion(client);
    await client.query(`SET search_path TO ${active!.schema}, public`);
  };
  await useActive();
  return {
    url,
    name,
    query: async <T>(sql: string, params?: unknown[]) => (await client.query(sql, params)).rows as T[],
    useActive,
    drop: async () => {
      await client.end().catch(() => undefined);
      const a = new Client({ connectionString: withDb(baseUrl, 'postgres') });
      await a.connect();
      await a.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await a.end();
    },
  };
}
