import { DataSource } from 'typeorm';
import {
  MinimalProjectAccessReader,
  OverviewReadModel,
  type ProjectAccessReader,
} from '@flaglens/projections';
import { GetProjectOverviewHandler } from './get-project-overview.query';

/** Token of the memberships/favourites reader the overview uses. */
export const PROJECT_ACCESS_READER = Symbol('ProjectAccessReader');

export const OVERVIEW_PROVIDERS = [
  // TO BE REPLACED BY THE IDENTITY READ MODEL AT MERGE: bind the identity branch's ProjectAccessReader here.
  {
    provide: PROJECT_ACCESS_READER,
    inject: [DataSource],
    useFactory: (db: DataSource) => new MinimalProjectAccessReader(db),
  },
  {
    provide: OverviewReadModel,
    inject: [DataSource, PROJECT_ACCESS_READER],
    useFactory: (db: DataSource, access: ProjectAccessReader) => new OverviewReadModel(db, access),
  },
  GetProjectOverviewHandler,
];
