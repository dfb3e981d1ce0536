import type { OnModuleInit } from '@nestjs/common';
import { IQueryHandler, Query, QueryHandler } from '@nestjs/cqrs';
import type { FastifyRequest } from 'fastify';
import { CachedReads } from '../auth/cached-reads';
import { Clock } from '@flaglens/config';
import {
  IdentityReadModel,
  InsightsReadModel,
  weeksSpanned,
  type InsightsRange,
} from '@flaglens/projections';
import { AsOfReads } from '../read-db/as-of-reads.service';
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
    /** `?at=`, parsed (parseAsOf): the report as of that instant; null: now */
    readonly at: string | null = null,
  ) {
    super();
  }
}

export const INSIGHTS_ROUTE = '/api/admin/insights';
export const EXECUTIVE_ROUTE = '/api/admin/dashboard/executive';
/** The deprecated route's headers (its successor named). */
export const EXECUTIVE_HEADERS = {
  deprecation: 'true',
  link: '</api/admin/insights>; rel="successor-version"',
};

/** The cache key of a report: "today", the range and the visibility set. */
const reportKey = (today: string, range: InsightsRange, hidden: readonly string[]) =>
  `${today}|${range.from ?? ''}|${range.to ?? ''}|${visibilityKey(hidden)}`;

@QueryHandler(GetInsightsQuery)
export class GetInsightsHandler implements IQueryHandler<GetInsightsQuery, JsonBody>, OnModuleInit {
  constructor(
    private readonly insights: InsightsReadModel,
    private readonly cache: InsightsCache,
    private readonly clock: Clock,
    private readonly visibility: Visibility,
    private readonly cachedReads: CachedReads,
    private readonly asOf: AsOfReads,
  ) {}

  onModuleInit(): void {
    // the hot path: the whole report (no range: `from` and `to` absent or empty) already cached for the
    // caller's visibility set; a range takes the full path (its parameters are checked there)
    const whole = (userId: number): JsonBody | undefined => {
      const hidden = this.visibility.cachedHiddenProjects(userId);
      if (!hidden) return undefined;
      const today = this.clock.now().toISOString().slice(0, 10);
      return this.cache.get(reportKey(today, { from: null, to: null }, hidden));
    };
    this.cachedReads.add(INSIGHTS_ROUTE, (req: FastifyRequest, userId) => {
      const q = (req.query ?? {}) as Record<string, unknown>;
      if ((q.from !== undefined && q.from !== '') || (q.to !== undefined && q.to !== '')) return undefined;
      const body = whole(userId);
      return body && { body };
    });
    this.cachedReads.add(EXECUTIVE_ROUTE, (_req, userId) => {
      const body = whole(userId);
      return body && { body, headers: EXECUTIVE_HEADERS };
    });
  }

  async execute({ range, userId, at }: GetInsightsQuery): Promise<JsonBody> {
    const now = at === null ? this.clock.now() : new Date(at);
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
    // as of an instant (docs/design.md, "Reads as of an instant"): the projects hidden from the caller are
    // today's; the report is that of a flaglens fed the events up to `at`, its clock at `at`; never cached
    if (at !== null)
      return this.asOf.read(at, async (db) => {
        const identity = new IdentityReadModel(db);
        const insights = new InsightsReadModel(
          db,
          (projectId) => identity.countProjectMembers(projectId),
          this.insights.maxWeeks,
        );
        return jsonBody(JSON.stringify(await insights.report(now, range, hidden)));
      });
    // the report changes with "today" (the current week's date), with every committed batch, and with what
    // the caller may see: keyed by the visibility set, shared by callers who see the same projects; concurrent
    // misses of one key share one computation
    return this.cache.getOrLoad(reportKey(today, range, hidden), async () => ({
      value: jsonBody(JSON.stringify(await this.insights.report(now, range, hidden))),
    }));
  }
}
