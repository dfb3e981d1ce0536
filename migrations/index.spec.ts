import { readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import type { MigrationInterface } from 'typeorm';
import { META_MIGRATIONS, migrationName, migrationTimestamp, VERSION_SCHEMA_MIGRATIONS } from './index';

type Migration = new () => MigrationInterface;

const ROOT = join(__dirname, '..');

/**
 * The migrations every database that ran them has recorded by name (TypeORM's `migrations` table), in the order
 * they ran. A rename would run a shipped migration again on an upgrade; a new migration comes after these.
 */
const SHIPPED = {
  meta: ['Meta1763800000000', 'PersonalAccessTokens1763800000210', 'SourcePositions1763800004000'],
  projection: [
    'ProjectorOffsets1763800000050',
    'EventLog1763800000100',
    'FlagState1763800000200',
    'Environments1763800000300',
    'FeatureTypes1763800000400',
    'Projects1763800000500',
    'ProjectEnvironments1763800000600',
    'ProjectActivity1763800000700',
    'TimeToProduction1763800000800',
    'SdkUsage1763800000900',
    'Identity1763800001100',
    'Insights1763800002001',
    'ProjectActivityFromEventLog1763800003000',
    'IdentityApplyFunction1763800003100',
    'TimeToProductionFromEventLog1763800003200',
    'InsightsEnvUpdatesByProject1763800003300',
    'EventCounts1763800003400',
    'DropInsightsFlags1763800004100',
    'InsightsStoredWeeks1763800004210',
    'EventLogGroups1763800004400',
    'ProjectLinkTemplates1763800004500',
    'IdentityGroupDetails1763800004510',
    'EventLogSearch1763800004600',
    'Lifecycle1763800004620',
  ],
};

const LISTS: [string, Migration[]][] = [
  ['meta', META_MIGRATIONS],
  ['projection', VERSION_SCHEMA_MIGRATIONS],
];

/** Files under `dir` whose name matches `pattern` (node_modules and dot-folders skipped). */
function files(dir: string, pattern: RegExp): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    if (e.name === 'node_modules' || e.name.startsWith('.')) return [];
    const path = join(dir, e.name);
    if (e.isDirectory()) return files(path, pattern);
    return pattern.test(e.name) ? [path] : [];
  });
}

/** The migration classes a file exports (anything with `up` and `down`). */
async function exportedMigrations(file: string): Promise<Migration[]> {
  return Object.values((await import(file)) as Record<string, unknown>).filter(
    (v): v is Migration =>
      typeof v === 'function' &&
      typeof (v.prototype as Partial<MigrationInterface>)?.up === 'function' &&
      typeof (v.prototype as Partial<MigrationInterface>)?.down === 'function',
  );
}

describe('migrations: one ordered list (migrations/index.ts)', () => {
  it.each(LISTS)('%s: timestamps strictly increasing', (_, list) => {
    const timestamps = list.map(migrationTimestamp);
    timestamps.slice(1).forEach((t, i) => expect(t).toBeGreaterThan(timestamps[i]));
  });

  it.each(LISTS)('%s: each recorded under its class name', (_, list) => {
    for (const m of list) expect(migrationName(m)).toBe(m.name);
  });

  it.each(LISTS)(
    '%s: the shipped migrations first, under the names the databases recorded',
    (scope, list) => {
      const shipped = SHIPPED[scope as keyof typeof SHIPPED];
      expect(list.slice(0, shipped.length).map(migrationName)).toEqual(shipped);
    },
  );

  it('every migration file (libs/**/*.migration.ts, migrations/<timestamp>-*.ts) is in exactly one list', async () => {
    const sources = [
      ...files(join(ROOT, 'libs'), /\.migration\.ts$/),
      ...files(join(ROOT, 'migrations'), /^\d{13}-.+\.ts$/),
    ];
    const registered = [...META_MIGRATIONS, ...VERSION_SCHEMA_MIGRATIONS];
    const missing: string[] = [];
    const found = new Set<Migration>();
    for (const file of sources) {
      const classes = await exportedMigrations(file);
      expect({ file: relative(ROOT, file), classes: classes.length }).toEqual({
        file: relative(ROOT, file),
        classes: 1,
      });
      for (const m of classes) {
        found.add(m);
        if (!registered.includes(m)) missing.push(`${m.name} (${relative(ROOT, file)})`);
      }
    }
    expect(missing).toEqual([]);
    // nothing listed twice, nothing listed that no migration file exports
    expect(registered.length).toBe(new Set(registered).size);
    expect(registered.filter((m) => !found.has(m)).map((m) => m.name)).toEqual([]);
  });
});
