import { MigrationInterface } from 'typeorm';
import type { Routine } from '@flaglens/persistence';
import { PROJECTIONS_OWN_MIGRATIONS, PROJECTIONS_OWN_ROUTINES } from '@flaglens/projections/migrations';
import { Meta1763800000000 } from './1763800000000-meta';
import { ProjectorOffsets1763800000050 } from './1763800000050-projector-offsets';
import { PersonalAccessTokens1763800000210 } from './1763800000210-personal-access-tokens';
import { SourcePositions1763800004000 } from './1763800004000-source-positions';

type Migration = new () => MigrationInterface;

/** The name a migration is recorded under (`migrations` table), ending in its 13-digit timestamp. */
export function migrationName(m: Migration): string {
  return new m().name ?? m.name;
}

/** The timestamp ending a migration's name: the order it runs in (TypeORM's, too). */
export function migrationTimestamp(m: Migration): number {
  const digits = /(\d{13})$/.exec(migrationName(m))?.[1];
  if (!digits)
    throw new Error(`migration ${migrationName(m)}: its name does not end in a 13-digit timestamp`);
  return Number(digits);
}

function inTimestampOrder(migrations: Migration[]): Migration[] {
  return [...migrations].sort((a, b) => migrationTimestamp(a) - migrationTimestamp(b));
}

/**
 * Every migration, in the order it runs: the one list (docs/design.md, "Schema changes"). Append-only: a new
 * migration's timestamp is later than every other's; a shipped one is never edited, and never renamed, since its
 * name is recorded in every database (migrations/index.spec.ts checks the order, that every migration file is
 * here, and the shipped names).
 *
 * META_MIGRATIONS run in `public` (what survives rebuilds: dead letters, the version registry, tokens): the
 * files of this folder.
 * VERSION_SCHEMA_MIGRATIONS run in every projection version's schema (`flaglens_v<N>`): on the active version by
 * `npm run migrate`, and in full on the new version a rebuild creates. The projection tables' migrations live
 * beside their projection and come from the projections library (libs/projections/src/migrations.ts); they use
 * unqualified table names.
 */
export const META_MIGRATIONS: Migration[] = inTimestampOrder([
  Meta1763800000000,
  PersonalAccessTokens1763800000210,
  SourcePositions1763800004000,
]);

export const VERSION_SCHEMA_MIGRATIONS: Migration[] = inTimestampOrder([
  ProjectorOffsets1763800000050,
  ...PROJECTIONS_OWN_MIGRATIONS,
]);

/**
 * Functions of every projection version, re-applied with CREATE OR REPLACE after the projection migrations
 * (not migrations: a rule change is a diff of the routine's .sql file, not a new migration copying it).
 */
export const VERSION_SCHEMA_ROUTINES: Routine[] = PROJECTIONS_OWN_ROUTINES;
