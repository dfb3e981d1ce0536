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
  private readonly inFlight = new Map<string, Promise<JsonBody>>();

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
    // concurrent misses of one key share one computation
    const running = this.inFlight.get(key);
    if (running) return running;
    const token = this.cache.begin();
    const p = this.insights
      .report(now, range)
      .then((r) => {
        const body = jsonBody(JSON.stringify(r));
        this.cache.set(key, body, token);
        return body;
      })
      .finally(() => this.inFlight.delete(key));
    this.inFlight.set(key, p);
    return p;
  }
}
