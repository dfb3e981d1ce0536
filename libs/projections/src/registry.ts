import { IdentityProjection } from './identity/identity.projection';
import type { Projection } from './projection';
import { EnvironmentsProjection } from './environments';
import { FeatureTypesProjection } from './feature-types';
import { FlagStateProjection } from './flag-state';
import { ProjectActivityProjection } from './project-activity';
import { ProjectEnvironmentsProjection } from './project-environments';
import { ProjectsProjection } from './projects';
import { SdkUsageProjection } from './sdk-usage';
import { TimeToProductionProjection } from './time-to-production';
import { InsightsProjection } from './insights/insights.projection';

/**
 * Every projection the projector applies after the event log, in this order, in each batch's transaction.
 * Add a projection here (and its migration to migrations/index.ts).
 */
export function allProjections(): Projection[] {
  return [
    new IdentityProjection(),
    new EnvironmentsProjection(),
    new FeatureTypesProjection(),
    new ProjectsProjection(),
    new ProjectEnvironmentsProjection(),
    new FlagStateProjection(),
    new ProjectActivityProjection(),
    new TimeToProductionProjection(),
    new SdkUsageProjection(),
    new InsightsProjection(),
  ];
}
