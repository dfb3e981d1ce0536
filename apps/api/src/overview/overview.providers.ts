import { IdentityProjectAccessReader, IdentityReadModel, OverviewReadModel } from '@flaglens/projections';
import { ProjectionReads } from '../cache/projection-reads.service';
import { GetProjectOverviewHandler } from './get-project-overview.query';

export const OVERVIEW_PROVIDERS = [
  {
    provide: OverviewReadModel,
    inject: [ProjectionReads, IdentityReadModel],
    useFactory: (reads: ProjectionReads, identity: IdentityReadModel) =>
      new OverviewReadModel(reads, new IdentityProjectAccessReader(identity)),
  },
  GetProjectOverviewHandler,
];
