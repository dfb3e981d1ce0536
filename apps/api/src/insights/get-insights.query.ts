import { IQueryHandler, Query, QueryHandler } from '@nestjs/cqrs';
import { Clock } from '@flaglens/config';
import { InsightsReadModel, type InsightsRange } from '@flaglens/projections';
import { InsightsCache } from '../cache/insights.cache';
import { jsonBody, type JsonBody } from '../common/json-body';

/** The instance insights (api-spec 2.13) for the weeks whose date is within the range, as of the clock. */
export class GetInsightsQuery extends Query<JsonBody> {
  constructor(readonly range: InsightsRange) {
    super();
  }
}

@QueryHandler(GetInsightsQuery)
export class GetInsightsHandler implements IQueryHandler<GetInsightsQuery, JsonBody> {
  constructor(
    private readonly insights: InsightsReadModel,
    private readonly cache: InsightsCache,
    private readonly clock: Clock,
  ) {}

  async execute({ range }: GetInsightsQuery): Promise<JsonBody> {
    const now = this.clock.now();
    // the report changes with "today" (the current week's date) and with every committed batch
    const key = `${now.toISOString().slice(0, 10)}|${range.from ?? ''}|${range.to ?? ''}`;
    const hit = this.cache.get(key);
    if (hit) return hit;
    const token = this.cache.begin();
    const body = jsonBody(JSON.stringify(await this.insights.report(now, range)));
    this.cache.set(key, body, token);
    return body;
  }
}
