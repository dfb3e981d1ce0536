/* Applies the migrations to DATABASE_URL (creating the database first if it is missing): `public`, then
   every projection version in use; creates projection version 1 on a new database. */
import 'reflect-metadata';
import { loadConfigOrExit, redactUrl } from '@flaglens/config';
import { ensureDatabase, migrateDatabase, openClient } from '@flaglens/persistence';
import { META_MIGRATIONS, VERSION_SCHEMA_MIGRATIONS, VERSION_SCHEMA_ROUTINES } from '../migrations';

async function main(): Promise<void> {
  const config = loadConfigOrExit();
  if (await ensureDatabase(config.DATABASE_URL)) {
    console.log(`[migrate] created database ${redactUrl(config.DATABASE_URL)}`);
  }
  const client = openClient({ connectionString: config.DATABASE_URL, application_name: 'flaglens-migrate' });
  await client.connect();
  try {
    const r = await migrateDatabase(
      config.DATABASE_URL,
      client,
      META_MIGRATIONS,
      VERSION_SCHEMA_MIGRATIONS,
      VERSION_SCHEMA_ROUTINES,
    );
    const applied = [...r.meta, ...r.projection];
    console.log(
      `[migrate] ${applied.length ? `applied ${applied.length}: ${applied.join(', ')}` : 'schema is up to date'}; ` +
        `active projections: ${r.active.schema}${r.created ? ' (new)' : ''}`,
    );
  } finally {
    await client.end();
  }
}

main().catch((e) => {
  console.error(`[migrate] failed: ${(e as Error).message}`);
  process.exit(1);
});
