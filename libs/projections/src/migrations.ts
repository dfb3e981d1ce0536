import type { MigrationInterface } from 'typeorm';
import { EventLog1763800000100 } from './event-log/event-log.migration';
import { EventCounts1763800003400 } from './event-log/event-counts.migration';
import { EventLogGroups1763800004400 } from './event-log/event-log-groups.migration';
import { EventLogSearch1763800004600 } from './event-log/event-log-search.migration';
import { EventSearchSpeed1763800004700 } from './event-log/event-search-speed.migration';
import { EventLogDays1763800004800 } from './event-log/event-log-days.migration';
import { EventSearchPending1763800004900 } from './event-log/event-search-pending.migration';
import { EventSearchEnvironmentType1763800005100 } from './event-log/event-search-pairs.migration';
import { EventLogPositionTimes1763800005200 } from './event-log/event-log-position-times.migration';
import { EventLogFeatureCover1763800005300 } from './event-log/event-log-feature-cover.migration';
import { EventLogMoves1763800005700 } from './event-log/event-log-moves.migration';
import { Identity1763800001100 } from './identity/identity.migration';
import { IdentityApplyFunction1763800003100 } from './identity/identity-apply-function.migration';
import { IdentityGroupDetails1763800004510 } from './identity/identity-group-details.migration';
import { IDENTITY_APPLY_ROUTINE } from './identity/identity-apply.routine';
import { FlagState1763800000200 } from './flag-state/flag-state.migration';
import { Environments1763800000300 } from './environments/environments.migration';
import { FeatureTypes1763800000400 } from './feature-types/feature-types.migration';
import { Projects1763800000500 } from './projects/projects.migration';
import { ProjectLinkTemplates1763800004500 } from './projects/project-link-templates.migration';
import { ProjectFlagEnabled1763800005000 } from './projects/project-flag-enabled.migration';
import { ProjectEnvironments1763800000600 } from './project-environments/project-environments.migration';
import { ProjectActivity1763800000700 } from './project-activity/project-activity.migration';
import { ProjectActivityFromEventLog1763800003000 } from './project-activity/project-activity-from-event-log.migration';
import { TimeToProduction1763800000800 } from './time-to-production/time-to-production.migration';
import { TimeToProductionFromEventLog1763800003200 } from './time-to-production/time-to-production-from-event-log.migration';
import { SdkUsage1763800000900 } from './sdk-usage/sdk-usage.migration';
import { Insights1763800002001 } from './insights/insights.migration';
import { InsightsEnvUpdatesByProject1763800003300 } from './insights/insights-env-updates-by-project.migration';
import { DropInsightsFlags1763800004100 } from './insights/drop-insights-flags.migration';
import { InsightsStoredWeeks1763800004210 } from './insights/insights-stored-weeks.migration';
import { InsightsStoredMetrics1763800005400 } from './insights/insights-stored-metrics.migration';
import { InsightsFlagDeltasCreated1763800005800 } from './insights/insights-flag-deltas-created.migration';
import { Lifecycle1763800004620 } from './lifecycle/lifecycle.migration';
import { LifecycleEnableSpans1763800005500 } from './lifecycle/lifecycle-enable-spans.migration';
import { LifecycleSpansApart1763800005600 } from './lifecycle/lifecycle-spans-apart.migration';

/**
 * The migrations of the projections' tables, each beside its projection (`<projection>/*.migration.ts`), listed by
 * projection. migrations/index.ts puts them in the order they run (by the timestamp ending each name) with the
 * migrations no projection owns; its unit test fails if a `*.migration.ts` is missing here. A projection's new
 * migration is added to its group; a shipped one is never edited, renamed or removed (docs/architecture.md).
 */
export const PROJECTIONS_OWN_MIGRATIONS: (new () => MigrationInterface)[] = [
  // event log
  EventLog1763800000100,
  EventCounts1763800003400,
  EventLogGroups1763800004400,
  EventLogSearch1763800004600,
  EventSearchSpeed1763800004700,
  EventLogDays1763800004800,
  EventSearchPending1763800004900,
  EventSearchEnvironmentType1763800005100,
  EventLogPositionTimes1763800005200,
  EventLogFeatureCover1763800005300,
  EventLogMoves1763800005700,
  // identity
  Identity1763800001100,
  IdentityApplyFunction1763800003100,
  IdentityGroupDetails1763800004510,
  // flag state, environments, feature types
  FlagState1763800000200,
  Environments1763800000300,
  FeatureTypes1763800000400,
  // projects and their environments
  Projects1763800000500,
  ProjectLinkTemplates1763800004500,
  ProjectFlagEnabled1763800005000,
  ProjectEnvironments1763800000600,
  // project activity, time to production
  ProjectActivity1763800000700,
  ProjectActivityFromEventLog1763800003000,
  TimeToProduction1763800000800,
  TimeToProductionFromEventLog1763800003200,
  // SDK usage, insights, lifecycle
  SdkUsage1763800000900,
  Insights1763800002001,
  InsightsEnvUpdatesByProject1763800003300,
  DropInsightsFlags1763800004100,
  InsightsStoredWeeks1763800004210,
  InsightsStoredMetrics1763800005400,
  InsightsFlagDeltasCreated1763800005800,
  Lifecycle1763800004620,
  LifecycleEnableSpans1763800005500,
  LifecycleSpansApart1763800005600,
];

/**
 * The projections' functions, re-applied with CREATE OR REPLACE after the migrations in every projection version
 * (not migrations: a rule change is a diff of the routine's .sql file, not a new migration copying it).
 */
export const PROJECTIONS_OWN_ROUTINES: { name: string; sql: string }[] = [IDENTITY_APPLY_ROUTINE];
