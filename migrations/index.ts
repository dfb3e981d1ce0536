import { MigrationInterface } from 'typeorm';
import { EventLog1763800000100 } from '../libs/projections/src/event-log/event-log.migration';
import { Identity1763800000200 } from '../libs/projections/src/identity/identity.migration';
import { ProjectorCore1763800000000 } from './1763800000000-projector-core';

/**
 * Every migration, in order. Append-only: never edit one that has landed; add a new one.
 * Projection tables' migrations live beside their projection (libs/projections/src/<name>/).
 */
export const MIGRATIONS: (new () => MigrationInterface)[] = [
  ProjectorCore1763800000000,
  EventLog1763800000100,
  Identity1763800000200,
];
