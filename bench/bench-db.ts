import { Client, type PoolClient } from 'pg';
import { Database, migrateDatabase, searchPathOption } from '@flaglens/persistence';
import { META_MIGRATIONS, VERSION_SCHEMA_MIGRATIONS, VERSION_SCHEMA_ROUTINES } from '../migrations';

const BASE = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/flaglens';
export const withDb = (db: string) => Object.assign(new URL(BASE), { pathname: `/${db}` }).toString();

/** Drops and creates the database `name`, migrated (projection version flaglens_v1); its URL. */
export async function freshDatabase(name: string): Promise<string> {
  const admin = new Client({ connectionString: withDb('postgres') });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = withDb(name);
  const migrator = new Client({ connectionString: url });
  await migrator.connect();
  await migrateDatabase(url, migrator, META_MIGRATIONS, VERSION_SCHEMA_MIGRATIONS, VERSION_SCHEMA_ROUTINES);
  await migrator.end();
  return url;
}

/** Drops the database `name`. */
export async function dropDatabase(name: string): Promise<void> {
  const admin = new Client({ connectionString: withDb('postgres') });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  await admin.end();
}

/** Runs `fn` with one connection to the projection version flaglens_v1 of `url`. */
export async function withClient<T>(url: string, fn: (c: PoolClient) => Promise<T>): Promise<T> {
  const ds = new Database({
    url,
    max: 1,
    options: searchPathOption('flaglens_v1'),
  });
  const c = await ds.connect();
  try {
    return await fn(c);
  } finally {
    c.release();
    await ds.end();
  }
}
