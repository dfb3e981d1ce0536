import { MigrationInterface } from 'typeorm';
import { EventLog1763800000100 } from '../libs/projections/src/event-log/event-log.migration';
import { EventCounts1763800003400 } from '../libs/projections/src/event-log/event-counts.migration';
import { EventLogGroups1763800004400 } from '../libs/projections/src/event-log/event-log-groups.migration';
import { Identity1763800001100 } from '../libs/projections/src/identity/identity.migration';
import { IdentityApplyFunction1763800003100 } from '../libs/projections/src/identity/identity-apply-function.migration';
import { FlagState1763800000200 } from '../libs/projections/src/flag-state/flag-state.migration';
import { Environments1763800000300 } from '../libs/projections/src/environments/environments.migration';
import { FeatureTypes1763800000400 } from '../libs/projections/src/feature-types/feature-types.migration';
import { Projects1763800000500 } from '../libs/projections/src/projects/projects.migration';
import { ProjectEnvironments1763800000600 } from '../libs/projections/src/project-environments/project-environments.migration';
import { ProjectActivity1763800000700 } from '../libs/projections/src/project-activity/project-activity.migration';
import { ProjectActivityFromEventLog1763800003000 } from '../libs/projections/src/project-activity/project-activity-from-event-log.migration';
import { TimeToProduction1763800000800 } from '../libs/projections/src/time-to-production/time-to-production.migration';
import { TimeToProductionFromEventLog1763800003200 } from '../libs/projections/src/time-to-production/time-to-production-from-event-log.migration';
import { SdkUsage1763800000900 } from '../libs/projections/src/sdk-usage/sdk-usage.migration';
import { Insights1763800002001 } from '../libs/projections/src/insights/insights.migration';
import { InsightsEnvUpdatesByProject1763800003300 } from '../libs/projections/src/insights/insights-env-updates-by-project.migration';
import { DropInsightsFlags1763800004100 } from '../libs/projections/src/insights/drop-insights-flags.migration';
import { InsightsStoredWeeks1763800004210 } from '../libs/projections/src/insights/insights-stored-weeks.migration';
import { ProjectLinkTemplates1763800004500 } from '../libs/projections/src/projects/project-link-templates.migration';
import { IdentityGroupDetails1763800004510 } from '../libs/projections/src/identity/identity-group-details.migration';
import { Meta1763800000000 } from './1763800000000-meta';
import { ProjectorOffsets1763800000050 } from './1763800000050-projector-offsets';
import { PersonalAccessTokens1763800000210 } from './1763800000210-personal-access-tokens';
import { IDENTITY_APPLY_ROUTINE } from '../libs/projections/src/identity/identity-apply.routine';
import type { Routine } from '../libs/persistence/src/projection-versions';
import { SourcePositions1763800004000 } from './1763800004000-source-positions';

type Migration = new () => MigrationInterface;

/**
 * Migrations, in order. Append-only: never edit one that has landed; add a new one.
 *
 * META_MIGRATIONS run in `public` (what survives rebuilds: dead letters, the version registry, tokens).
 * PROJECTION_MIGRATIONS run in every projection version's schema (`flaglens_v<N>`): on the active version
 * by `npm run migrate`, and in full on the new version a rebuild creates. Projection tables' migrations live
 * beside their projection (libs/projections/src/<name>/); they use unqualified table names.
 */
export const META_MIGRATIONS: Migration[] = [
  Meta1763800000000,
  PersonalAccessTokens1763800000210,
  SourcePositions1763800004000,
];

export const PROJECTION_MIGRATIONS: Migration[] = [
  ProjectorOffsets1763800000050,
  EventLog1763800000100,
  FlagState1763800000200,
  Environments1763800000300,
  FeatureTypes1763800000400,
  Projects1763800000500,
  ProjectEnvironments1763800000600,
  ProjectActivity1763800000700,
  TimeToProduction1763800000800,
  SdkUsage1763800000900,
  Identity1763800001100,
  Insights1763800002001,
  ProjectActivityFromEventLog1763800003000,
  IdentityApplyFunction1763800003100,
  TimeToProductionFromEventLog1763800003200,
  InsightsEnvUpdatesByProject1763800003300,
  EventCounts1763800003400,
  DropInsightsFlags1763800004100,
  InsightsStoredWeeks1763800004210,
  EventLogGroups1763800004400,
  ProjectLinkTemplates1763800004500,
  IdentityGroupDetails1763800004510,
];

/**
 * Functions of every projection version, re-applied with CREATE OR REPLACE after the projection migrations
 * (not migrations: a rule change is a diff of the routine's .sql file, not a new migration copying it).
 */
export const PROJECTION_ROUTINES: Routine[] = [IDENTITY_APPLY_ROUTINE];
