import { IdentityReadModel, InsightsReadModel } from '@flaglens/projections';
import { rowsVia } from '@flaglens/persistence';
import { ProjectionReads } from '../cache/projection-reads.service';
import { GetInsightsHandler } from './get-insights.query';
import { InsightsCache } from '../cache/insights.cache';

export const INSIGHTS_PROVIDERS = [
  {
    provide: InsightsReadModel,
    inject: [ProjectionReads, IdentityReadModel],
    useFactory: (reads: ProjectionReads, identity: IdentityReadModel) =>
      new InsightsReadModel(rowsVia(reads), (projectId) => identity.countProjectMembers(projectId)),
  },
  InsightsCache,
  GetInsightsHandler,
];
