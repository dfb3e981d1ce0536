import type { MigrationInterface } from 'typeorm';
import type { ClientBase, Pool } from 'pg';
import { createDataSource } from './data-source';

type Migration = new () => MigrationInterface;
type Queryable = Pick<ClientBase, 'query'> | Pick<Pool, 'query'>;

export interface ProjectionVersion {
  version: number;
  schema: string;
  status: 'building' | 'active' | 'retired';
}

export const schemaOfVersion = (version: number) => `flaglens_v${version}`;

/** A libpq `options` value that makes a connection resolve unqualified names in `schema`, then `public`. */
export const searchPathOption = (schema: string) => `-c search_path=${assertSchemaName(schema)},public`;

/**
 * The advisory lock that orders batches and version switches: every live batch holds it shared for its
 * transaction, a rebuild's switch takes it exclusively, so the switch waits for the batches in flight and the
 * next batch reads the new active version. (A row lock FOR SHARE did the same, but each concurrent batch then
 * rewrote the row's lockers, a MultiXact, on every batch.)
 */
export const VERSION_SWITCH_LOCK = 7_101_990_001;

export function assertSchemaName(schema: string): string {
  if (!/^flaglens_v\d{1,9}$/.test(schema)) throw new Error(`not a projection schema name: ${schema}`);
  return schema;
}

export async function activeVersion(db: Queryable): Promise<ProjectionVersion | null> {
  const r = await db.query(
    `SELECT version, schema_name, status FROM projection_versions WHERE status = 'active'`,
  );
  const row = r.rows[0] as
    { version: number; schema_name: string; status: ProjectionVersion['status'] } | undefined;
  return row ? { version: row.version, schema: row.schema_name, status: row.status } : null;
}

export async function latestVersion(db: Queryable): Promise<ProjectionVersion | null> {
  const r = await db.query(
    `SELECT version, schema_name, status FROM projection_versions ORDER BY version DESC LIMIT 1`,
  );
  const row = r.rows[0] as
    { version: number; schema_name: string; status: ProjectionVersion['status'] } | undefined;
  return row ? { version: row.version, schema: row.schema_name, status: row.status } : null;
}

/**
 * Routines (functions) a projection version needs, as `CREATE OR REPLACE` SQL: re-applied after the
 * migrations whenever a version is migrated, so a rule change is a diff of the routine's file.
 */
export type Routine = { name: string; sql: string };

async function runMigrations(
  url: string,
  migrations: Migration[],
  schema: string | null,
  routines: Routine[] = [],
): Promise<string[]> {
  const ds = createDataSource({
    url,
    migrations,
    poolSize: 1,
    applicationName: 'flaglens-migrate',
    options: schema ? searchPathOption(schema) : undefined,
  });
  await ds.initialize();
  try {
    const applied = await ds.runMigrations({ transaction: 'each' });
    for (const r of routines) await ds.query(r.sql);
    return applied.map((m) => m.name);
  } finally {
    await ds.destroy();
  }
}

/** Creates a projection version's schema with every projection table (used by migrate and by rebuild). */
export async function createProjectionVersion(
  url: string,
  db: Queryable,
  migrations: Migration[],
  status: 'building' | 'active',
  routines: Routine[] = [],
): Promise<ProjectionVersion> {
  const latest = await latestVersion(db);
  const version = (latest?.version ?? 0) + 1;
  const schema = schemaOfVersion(version);
  await db.query(`CREATE SCHEMA ${assertSchemaName(schema)}`);
  await runMigrations(url, migrations, schema, routines);
  await db.query(
    `INSERT INTO projection_versions (version, schema_name, status, activated_at) VALUES ($1, $2, $3, CASE WHEN $3 = 'active' THEN now() END)`,
    [version, schema, status],
  );
  return { version, schema, status };
}

export interface MigrateResult {
  meta: string[];
  projection: string[];
  active: ProjectionVersion;
  created: boolean;
}

/**
 * Brings a database up to date: `public` migrations, then the projection migrations and routines on every
 * version still in use (active, or being built); creates version 1 when there is none.
 */
export async function migrateDatabase(
  url: string,
  db: Queryable,
  meta: Migration[],
  projection: Migration[],
  routines: Routine[] = [],
): Promise<MigrateResult> {
  const metaApplied = await runMigrations(url, meta, null);
  let active = await activeVersion(db);
  let created = false;
  const projectionApplied: string[] = [];
  if (!active) {
    active = await createProjectionVersion(url, db, projection, 'active', routines);
    created = true;
    projectionApplied.push(...projection.map((m) => new m().name ?? m.name));
  }
  const inUse = await db.query(
    `SELECT schema_name FROM projection_versions WHERE status IN ('active', 'building')`,
  );
  for (const row of inUse.rows as { schema_name: string }[]) {
    projectionApplied.push(...(await runMigrations(url, projection, row.schema_name, routines)));
  }
  return { meta: metaApplied, projection: projectionApplied, active, created };
}
