import type { OnModuleInit } from '@nestjs/common';
import { IQueryHandler, Query, QueryHandler } from '@nestjs/cqrs';
import { AS_OF_PARAMETER } from '@flaglens/contract';
import { CachedReads } from '../reads/cached-reads';
import { queryParam, readRoute } from '../reads/read-route';
import { asOfInstant } from '../common/as-of';
import { Clock } from '@flaglens/config';
import {
  IdentityReadModel,
  InsightsReadModel,
  READS_ANYTHING,
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

/** `YYYY-MM-DD` that is a real calendar day; '' or absent → no bound (the reference's UI sends `from=&to=`). */
export function parseDay(name: string, v: unknown): string | null {
  if (v === undefined || v === '') return null;
  if (typeof v === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(v)) {
    const t = Date.parse(`${v}T00:00:00Z`);
    if (!Number.isNaN(t) && new Date(t).toISOString().slice(0, 10) === v) return v;
  }
  throw badData(`"${name}" must be a date formatted as YYYY-MM-DD`);
}

/** GET /api/admin/insights, declared once for its controller and the cached fast path. */
export const INSIGHTS_READ = readRoute({
  path: '/api/admin/insights',
  ask: (req, userId) =>
    new GetInsightsQuery(
      { from: parseDay('from', queryParam(req, 'from')), to: parseDay('to', queryParam(req, 'to')) },
      userId,
      asOfInstant(queryParam(req, AS_OF_PARAMETER)),
    ),
});

/**
 * GET /api/admin/dashboard/executive (deprecated): the whole report (no range), its successor named in its
 * headers; as of an instant like its successor.
 */
export const EXECUTIVE_READ = readRoute({
  path: '/api/admin/dashboard/executive',
  ask: (req, userId) =>
    new GetInsightsQuery({ from: null, to: null }, userId, asOfInstant(queryParam(req, AS_OF_PARAMETER))),
  headers: { deprecation: 'true', link: '</api/admin/insights>; rel="successor-version"' },
});

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
    const whole = ({ range, userId }: GetInsightsQuery): JsonBody | undefined => {
      if (range.from !== null || range.to !== null) return undefined;
      const hidden = this.visibility.cachedHiddenProjects(userId);
      if (!hidden) return undefined;
      const today = this.clock.now().toISOString().slice(0, 10);
      return this.cache.get(reportKey(today, range, hidden));
    };
    this.cachedReads.add(INSIGHTS_READ, whole);
    this.cachedReads.add(EXECUTIVE_READ, whole);
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
      // the report declares no tables (its cache is dropped by every batch): every projection replayed
      return this.asOf.read(at, [READS_ANYTHING], async (db) => {
        const identity = new IdentityReadModel(db);
        const insights = new InsightsReadModel(
          db,
          (projectIds) => identity.countMembersOfProjects(projectIds),
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
