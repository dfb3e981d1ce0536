import { IQueryHandler, Query, QueryHandler } from '@nestjs/cqrs';
import { Clock } from '@flaglens/config';
import { LifecycleReadModel } from '@flaglens/projections';
import { Visibility, visibilityKey } from '../auth/visibility.service';
import { jsonBody, type JsonBody } from '../common/json-body';
import { AsOfReads } from '../read-db/as-of-reads.service';
import { LifecycleInsightsCache } from './lifecycle-insights.cache';

/**
 * The lifecycle summary (Unleash 8.x Enterprise, `GET /api/admin/insights/lifecycle`) of the flags in
 * `projects` (null: every project), as of the clock, without the private projects the caller may not see.
 */
export class GetLifecycleInsightsQuery extends Query<JsonBody> {
  constructor(
    readonly projects: readonly string[] | null,
    readonly userId: number,
    /** `?at=`, parsed (parseAsOf): the summary as of that instant; null: now */
    readonly at: string | null = null,
  ) {
    super();
  }
}

export const LIFECYCLE_INSIGHTS_ROUTE = '/api/admin/insights/lifecycle';

@QueryHandler(GetLifecycleInsightsQuery)
export class GetLifecycleInsightsHandler implements IQueryHandler<GetLifecycleInsightsQuery, JsonBody> {
  constructor(
    private readonly lifecycle: LifecycleReadModel,
    private readonly cache: LifecycleInsightsCache,
    private readonly clock: Clock,
    private readonly visibility: Visibility,
    private readonly asOf: AsOfReads,
  ) {}

  async execute({ projects, userId, at }: GetLifecycleInsightsQuery): Promise<JsonBody> {
    const now = this.clock.now();
    const hidden = await this.visibility.hiddenProjects(userId);
    // as of an instant (docs/design.md, "Reads as of an instant"): the projects hidden from the caller are
    // today's; the summary is that of a flaglens fed the events up to `at`, its clock at `at`; never cached
    if (at !== null)
      return this.asOf.read(at, async (db) => {
        const { body } = await new LifecycleReadModel(db).summary(new Date(at), projects, hidden);
        return jsonBody(JSON.stringify(body));
      });
    // keyed by the projects asked for and the visibility set (callers who see the same projects share it),
    // valid from the instant it was computed for until a figure moves with the clock
    const key = `${projects === null ? '*' : JSON.stringify([...projects].sort())}|${visibilityKey(hidden)}`;
    return this.cache.getOrLoad(
      key,
      async () => {
        const { body, validUntil } = await this.lifecycle.summary(now, projects, hidden);
        return { value: jsonBody(JSON.stringify(body)), validFrom: now.getTime(), validUntil };
      },
      now.getTime(),
    );
  }
}
