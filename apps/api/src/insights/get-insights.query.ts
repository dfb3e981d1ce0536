import { IQueryHandler, Query, QueryHandler } from '@nestjs/cqrs';
import { Clock } from '@flaglens/config';
import { InsightsReadModel, type InsightsRange, type InstanceInsights } from '@flaglens/projections';

/** The instance insights (api-spec 2.13) for the weeks whose date is within the range, as of the clock. */
export class GetInsightsQuery extends Query<InstanceInsights> {
  constructor(readonly range: InsightsRange) {
    super();
  }
}

@QueryHandler(GetInsightsQuery)
export class GetInsightsHandler implements IQueryHandler<GetInsightsQuery, InstanceInsights> {
  constructor(
    private readonly insights: InsightsReadModel,
    private readonly clock: Clock,
  ) {}

  execute({ range }: GetInsightsQuery): Promise<InstanceInsights> {
    return this.insights.report(this.clock.now(), range);
  }
}
