import { InsightsReadModel } from '@flaglens/projections';
import { rowsVia } from '@flaglens/persistence';
import { ProjectionReads } from '../cache/projection-reads.service';
import { GetInsightsHandler } from './get-insights.query';

export const INSIGHTS_PROVIDERS = [
  {
    provide: InsightsReadModel,
    inject: [ProjectionReads],
    useFactory: (reads: ProjectionReads) => new InsightsReadModel(rowsVia(reads)),
  },
  GetInsightsHandler,
];
