import { IdentityProjection } from './identity/identity.projection';
import type { Reads } from './change-feed';
import { EVERY, type Projection } from './projection';
import { environmentsProjection } from './environments';
import { featureTypesProjection } from './feature-types';
import { flagStateProjection } from './flag-state';
import { ProjectActivityProjection } from './project-activity';
import { ProjectEnvironmentsProjection } from './project-environments';
import { ProjectsProjection } from './projects';
import { SdkUsageProjection } from './sdk-usage';
import { LifecycleProjection } from './lifecycle';
import { InsightsProjection } from './insights/insights.projection';

/**
 * Every projection the projector applies after the event log, in this order, in each batch's transaction.
 * Add a projection here (and its migrations to ./migrations.ts). Project activity's exact instants and
 * time to production's enables are read from the event log's partial indexes: no projection writes them.
 */
export function allProjections(): Projection[] {
  return [
    new IdentityProjection(),
    environmentsProjection,
    featureTypesProjection,
    new ProjectEnvironmentsProjection(),
    // rows of one flag: its events come from one partition, so concurrent batches do not wait on them
    flagStateProjection,
    new SdkUsageProjection(),
    new LifecycleProjection(),
    // rows every partition's batches update (per project, per day): last, so their row locks are held for the
    // shortest time before the commit and the other partition's batch waits least
    new ProjectsProjection(),
    new ProjectActivityProjection(),
    new InsightsProjection(),
  ];
}

/**
 * The projections a read needs, from what its read models declare they read (change-feed.ts `Reads`), in the
 * registry's order: those that write one of the tables, those that write a table these read while applying
 * (Projection.reads), and so on; a declaration of `'*'`: every one. A table's part (`projects.settings`) names
 * its table.
 */
export function projectionsFor(
  reads: readonly Reads[],
  all: readonly Projection[] = allProjections(),
): Projection[] {
  const needed = new Set<string>();
  for (const r of reads) {
    if (r.tables === EVERY) return [...all];
    for (const t of r.tables) needed.add(t.split('.')[0]);
  }
  const chosen = new Set<Projection>();
  for (let grew = true; grew;) {
    grew = false;
    for (const p of all)
      if (!chosen.has(p) && p.writes.some((t) => needed.has(t))) {
        chosen.add(p);
        for (const t of p.reads ?? []) needed.add(t);
        grew = true;
      }
  }
  return all.filter((p) => chosen.has(p));
}

/**
 * The tables that only projections left out of `chosen` write: a replay through `chosen` neither loads nor
 * writes them (a table one of the chosen writes too is theirs).
 */
export function tablesLeftOut(
  chosen: readonly Projection[],
  all: readonly Projection[] = allProjections(),
): Set<string> {
  const written = new Set(chosen.flatMap((p) => p.writes));
  return new Set(all.flatMap((p) => p.writes.filter((t) => !written.has(t))));
}
