import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { dropDatabaseWhenLeft } from './drop-database';
import {
  activeVersion,
  assertSchemaName,
  Database,
  migrateDatabase,
  searchPathOption,
} from '@flaglens/persistence';
import { META_MIGRATIONS, VERSION_SCHEMA_MIGRATIONS, VERSION_SCHEMA_ROUTINES } from '../../../../migrations';

const BASE_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/flaglens';

export interface TestDatabase {
  url: string;
  name: string;
  query<T = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<T[]>;
  /** Points `query` at the projection version active now (after a rebuild switched it). */
  useActive(): Promise<void>;
  /**
   * Drops the database. Connections that are closing are waited for, those left open forced (at most `waitMs`,
   * default 5 s; `dropDatabaseWhenLeft`): a pool's `end()` resolves once it has asked its clients to end, and
   * forcing one of those would end it with 57P01, an 'error' event that a pool without a listener turns into an
   * unhandled error in whatever test runs next.
   */
  drop(options?: { waitMs?: number }): Promise<void>;
  /** Ends this handle's connection and keeps the database (a bench's `--keep`). */
  close(): Promise<void>;
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
  await migrateDatabase(url, client, META_MIGRATIONS, VERSION_SCHEMA_MIGRATIONS, VERSION_SCHEMA_ROUTINES);
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
    drop: async ({ waitMs = 5000 } = {}) => {
      await client.end().catch(() => undefined);
      await dropDatabaseWhenLeft(withDb(baseUrl, 'postgres'), name, waitMs);
    },
    close: () => client.end().catch(() => undefined),
  };
}

/**
 * Test databases with a pool on the projection schema of each (`flaglens_v1`), for projection tests that
 * compare several databases fed the same events; `dropAll` ends the pools and drops the databases.
 */
export function projectionDatabases(): {
  fresh(label: string): Promise<{ db: TestDatabase; ds: Database }>;
  dropAll(): Promise<void>;
} {
  const made: { db: TestDatabase; ds: Database }[] = [];
  return {
    async fresh(label) {
      const db = await createTestDatabase(label);
      const ds = new Database({
        url: db.url,
        max: 2,
        applicationName: 't',
        options: searchPathOption('flaglens_v1'),
      });
      made.push({ db, ds });
      return { db, ds };
    },
    async dropAll() {
      for (const { ds } of made) await ds.end();
      for (const { db } of made) await db.drop();
    },
  };
}
