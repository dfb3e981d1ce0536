import { DataSource, MigrationInterface } from 'typeorm';
import { openClient } from './connections';
import { redactUrl } from '@flaglens/config';

export interface DataSourceOptions {
  url: string;
  poolSize?: number;
  applicationName?: string;
  migrations?: (new () => MigrationInterface)[];
  /** libpq options, e.g. a search_path (see searchPathOption). */
  options?: string;
}

/** A TypeORM DataSource over `pg`. Schema changes happen only through migrations (synchronize stays off). */
export function createDataSource(opts: DataSourceOptions): DataSource {
  return new DataSource({
    type: 'postgres',
    url: opts.url,
    synchronize: false,
    migrationsRun: false,
    migrations: opts.migrations ?? [],
    migrationsTableName: 'flaglens_migrations',
    applicationName: opts.applicationName ?? 'flaglens',
    poolSize: opts.poolSize ?? 10,
    logging: ['error'],
    extra: {
      connectionTimeoutMillis: 5000,
      keepAlive: true,
      ...(opts.options ? { options: opts.options } : {}),
    },
  });
}

/** Creates the database named in `url` when it does not exist yet (connecting to the `postgres` database). */
export async function ensureDatabase(url: string): Promise<boolean> {
  const target = new URL(url);
  const dbName = decodeURIComponent(target.pathname.replace(/^\//, '')) || 'postgres';
  const admin = new URL(url);
  admin.pathname = '/postgres';
  const client = openClient({ connectionString: admin.toString(), connectionTimeoutMillis: 5000 });
  try {
    await client.connect();
  } catch (e) {
    throw new Error(`cannot reach Postgres at ${redactUrl(admin.toString())}: ${(e as Error).message}`);
  }
  try {
    const found = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [dbName]);
    if (found.rowCount) return false;
    // identifiers cannot be parameters: quote it safely
    await client.query(`CREATE DATABASE "${dbName.replace(/"/g, '""')}"`);
    return true;
  } finally {
    await client.end();
  }
}
