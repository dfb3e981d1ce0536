import { MigrationInterface } from 'typeorm';
import { EventLog1763800000100 } from '../libs/projections/src/event-log/event-log.migration';
import { FlagState1763800000200 } from '../libs/projections/src/flag-state/flag-state.migration';
import { Environments1763800000300 } from '../libs/projections/src/environments/environments.migration';
import { FeatureTypes1763800000400 } from '../libs/projections/src/feature-types/feature-types.migration';
import { Projects1763800000500 } from '../libs/projections/src/projects/projects.migration';
import { ProjectEnvironments1763800000600 } from '../libs/projections/src/project-environments/project-environments.migration';
import { ProjectActivity1763800000700 } from '../libs/projections/src/project-activity/project-activity.migration';
import { TimeToProduction1763800000800 } from '../libs/projections/src/time-to-production/time-to-production.migration';
import { SdkUsage1763800000900 } from '../libs/projections/src/sdk-usage/sdk-usage.migration';
import { OverviewProjectAccess1763800001000 } from '../libs/projections/src/project-access/project-access.migration';
import { ProjectorCore1763800000000 } from './1763800000000-projector-core';

/**
 * Every migration, in order. Append-only: never edit one that has landed; add a new one.
 * Projection tables' migrations live beside their projection (libs/projections/src/<name>/).
 */
export const MIGRATIONS: (new () => MigrationInterface)[] = [
  ProjectorCore1763800000000,
  EventLog1763800000100,
  FlagState1763800000200,
  Environments1763800000300,
  FeatureTypes1763800000400,
  Projects1763800000500,
  ProjectEnvironments1763800000600,
  ProjectActivity1763800000700,
  TimeToProduction1763800000800,
  SdkUsage1763800000900,
  // TO BE REPLACED BY THE IDENTITY READ MODEL AT MERGE
  OverviewProjectAccess1763800001000,
];
