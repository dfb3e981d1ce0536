/* Applies the TypeORM migrations to DATABASE_URL, creating the database first if it is missing. */
import 'reflect-metadata';
import { loadConfigOrExit, redactUrl } from '@flaglens/config';
import { createDataSource, ensureDatabase } from '@flaglens/persistence';
import { MIGRATIONS } from '../migrations';

async function main(): Promise<void> {
  const config = loadConfigOrExit();
  if (await ensureDatabase(config.DATABASE_URL)) {
    console.log(`[migrate] created database ${redactUrl(config.DATABASE_URL)}`);
  }
  const ds = createDataSource({
    url: config.DATABASE_URL,
    migrations: MIGRATIONS,
    applicationName: 'flaglens-migrate',
  });
  await ds.initialize();
  try {
    const applied = await ds.runMigrations({ transaction: 'each' });
    console.log(
      applied.length
        ? `[migrate] applied ${applied.length}: ${applied.map((m) => m.name).join(', ')}`
        : '[migrate] schema is up to date',
    );
  } finally {
    await ds.destroy();
  }
}

main().catch((e) => {
  console.error(`[migrate] failed: ${(e as Error).message}`);
  process.exit(1);
});
