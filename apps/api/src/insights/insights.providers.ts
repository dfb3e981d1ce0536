import { InsightsReadModel } from '@flaglens/projections';
import { rowsVia } from '@flaglens/persistence';
import { ProjectionReads } from '../cache/projection-reads.service';
import { GetInsightsHandler } from './get-insights.query';
import { InsightsCache } from '../cache/insights.cache';

export const INSIGHTS_PROVIDERS = [
  {
    provide: InsightsReadModel,
    inject: [ProjectionReads],
    useFactory: (reads: ProjectionReads) => new InsightsReadModel(rowsVia(reads)),
  },
  InsightsCache,
  GetInsightsHandler,
];
