import { IQueryHandler, Query, QueryHandler } from '@nestjs/cqrs';
import { Clock } from '@flaglens/config';
import { LIFECYCLE_READS, LifecycleReadModel } from '@flaglens/projections';
import { Visibility, visibilityKey } from '../auth/visibility.service';
import { jsonBody, type JsonBody } from '../common/json-body';
import { AsOfReads } from '../read-db/as-of-reads.service';
import { AS_OF_PARAMETER } from '@flaglens/contract';
import { asOfInstant } from '../common/as-of';
import { badData } from '../common/unleash-errors';
import { queryParam, readRoute } from '../reads/read-route';
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

/** The most project ids one `projects` filter may name. */
export const MAX_PROJECTS_FILTER = 1000;
/** A project id as the filter takes it: at most 100 characters, none of them a control character. */
const isProjectId = (p: string): boolean =>
  p.length <= 100 && [...p].every((ch) => ch.charCodeAt(0) >= 0x20 && ch.charCodeAt(0) !== 0x7f);

/**
 * `projects=a,b` → the ids; absent or empty → null (every project: the reference's UI sends `projects=` when
 * none is chosen). Empty items are ignored; a repeated parameter, an id over 100 characters or with a
 * control character, or more than 1000 ids is 400 BadDataError.
 */
export function parseProjects(v: unknown): string[] | null {
  if (v === undefined || v === '') return null;
  const message = `"projects" must be a comma-separated list of project ids (at most ${MAX_PROJECTS_FILTER})`;
  if (typeof v !== 'string') throw badData(message);
  const ids = [...new Set(v.split(',').filter((p) => p !== ''))];
  if (ids.length === 0) return null;
  if (ids.length > MAX_PROJECTS_FILTER || !ids.every(isProjectId)) throw badData(message);
  return ids.sort();
}

/** GET /api/admin/insights/lifecycle, declared once (docs/architecture.md, "One request path"). */
export const LIFECYCLE_INSIGHTS_READ = readRoute({
  path: '/api/admin/insights/lifecycle',
  ask: (req, userId) =>
    new GetLifecycleInsightsQuery(
      parseProjects(queryParam(req, 'projects')),
      userId,
      asOfInstant(queryParam(req, AS_OF_PARAMETER)),
    ),
});

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
      return this.asOf.read(at, [LIFECYCLE_READS], async (db) => {
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
