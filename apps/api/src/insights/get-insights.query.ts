import { IQueryHandler, Query, QueryHandler } from '@nestjs/cqrs';
import { Clock } from '@flaglens/config';
import { InsightsReadModel, weeksSpanned, type InsightsRange } from '@flaglens/projections';
import { Visibility, visibilityKey } from '../auth/visibility.service';
import { badData } from '../common/unleash-errors';
import { InsightsCache } from './insights.cache';
import { jsonBody, type JsonBody } from '../common/json-body';

/**
 * The instance insights (api-spec 2.13) for the weeks whose date is within the range, as of the clock,
 * without any row or figure of the private projects the caller may not see.
 */
export class GetInsightsQuery extends Query<JsonBody> {
  constructor(
    readonly range: InsightsRange,
    readonly userId: number,
  ) {
    super();
  }
}

@QueryHandler(GetInsightsQuery)
export class GetInsightsHandler implements IQueryHandler<GetInsightsQuery, JsonBody> {
  constructor(
    private readonly insights: InsightsReadModel,
    private readonly cache: InsightsCache,
    private readonly clock: Clock,
    private readonly visibility: Visibility,
  ) {}

  async execute({ range, userId }: GetInsightsQuery): Promise<JsonBody> {
    const now = this.clock.now();
    const today = now.toISOString().slice(0, 10);
    if (range.from !== null) {
      const last = range.to !== null && range.to < today ? range.to : today;
      if (range.from <= last && weeksSpanned(range.from, last) > this.insights.maxWeeks)
        throw badData(
          `the range may span at most ${this.insights.maxWeeks} weeks: "from" must be on or after ` +
            `the Monday ${this.insights.maxWeeks - 1} weeks before the week of "to"`,
        );
    }
    const hidden = await this.visibility.hiddenProjects(userId);
    // the report changes with "today" (the current week's date), with every committed batch, and with what
    // the caller may see: keyed by the visibility set, shared by callers who see the same projects; concurrent
    // misses of one key share one computation
    const key = `${today}|${range.from ?? ''}|${range.to ?? ''}|${visibilityKey(hidden)}`;
    return this.cache.getOrLoad(key, async () => ({
      value: jsonBody(JSON.stringify(await this.insights.report(now, range, hidden))),
    }));
  }
}
