import { IdentityProjection } from './identity/identity.projection';
import type { Projection } from './projection';
import { EnvironmentsProjection } from './environments';
import { FeatureTypesProjection } from './feature-types';
import { FlagStateProjection } from './flag-state';
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
    new EnvironmentsProjection(),
    new FeatureTypesProjection(),
    new ProjectEnvironmentsProjection(),
    // rows of one flag: its events come from one partition, so concurrent batches do not wait on them
    new FlagStateProjection(),
    new SdkUsageProjection(),
    new LifecycleProjection(),
    // rows every partition's batches update (per project, per day): last, so their row locks are held for the
    // shortest time before the commit and the other partition's batch waits least
    new ProjectsProjection(),
    new ProjectActivityProjection(),
    new InsightsProjection(),
  ];
}
