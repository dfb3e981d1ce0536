import { IQueryHandler, Query, QueryHandler } from '@nestjs/cqrs';
import { Clock } from '@flaglens/config';
import { AS_OF_PARAMETER } from '@flaglens/contract';
import { PERSONAL_DASHBOARD_READS, PersonalDashboardReadModel } from '@flaglens/projections';
import { Visibility } from '../auth/visibility.service';
import { asOfInstant } from '../common/as-of';
import { jsonBody, type JsonBody } from '../common/json-body';
import { notFound } from '../common/unleash-errors';
import { AsOfReads } from '../read-db/as-of-reads.service';
import { pathParam, queryParam, readRoute } from '../reads/read-route';
import { PersonalDashboardUrl } from './personal-dashboard-url';

/** The caller's personal dashboard (Unleash 8.2.0), or one project's details on it (`projectId`). */
export class GetPersonalDashboardQuery extends Query<JsonBody> {
  constructor(
    readonly userId: number,
    /** null: the dashboard; else that project's details */
    readonly projectId: string | null,
    /** `?at=`, parsed (parseAsOf): as of that instant; null: now */
    readonly at: string | null = null,
  ) {
    super();
  }
}

/** GET /api/admin/personal-dashboard, declared once (docs/architecture.md, "One request path"). */
export const PERSONAL_DASHBOARD_READ = readRoute({
  path: '/api/admin/personal-dashboard',
  ask: (req, userId) =>
    new GetPersonalDashboardQuery(userId, null, asOfInstant(queryParam(req, AS_OF_PARAMETER))),
});

/** GET /api/admin/personal-dashboard/{projectId}. */
export const PROJECT_DETAILS_READ = readRoute({
  path: '/api/admin/personal-dashboard/:projectId',
  ask: (req, userId) =>
    new GetPersonalDashboardQuery(
      userId,
      String(pathParam(req, 'projectId') ?? ''),
      asOfInstant(queryParam(req, AS_OF_PARAMETER)),
    ),
});

@QueryHandler(GetPersonalDashboardQuery)
export class GetPersonalDashboardHandler implements IQueryHandler<GetPersonalDashboardQuery, JsonBody> {
  constructor(
    private readonly dashboards: PersonalDashboardReadModel,
    private readonly clock: Clock,
    private readonly visibility: Visibility,
    private readonly asOf: AsOfReads,
    private readonly url: PersonalDashboardUrl,
  ) {}

  async execute({ userId, projectId, at }: GetPersonalDashboardQuery): Promise<JsonBody> {
    // a private project hidden from the caller is not shown, as everywhere else (OSS has none: docs/deviations.md)
    if (projectId !== null && (await this.visibility.hiddenProjects(userId)).includes(projectId))
      throw notFound(`No project with id "${projectId}" exists.`);
    // computed on each read, as Unleash does (health and staleness move with the clock)
    const read = async (m: PersonalDashboardReadModel, now: Date) => {
      if (projectId === null) return m.dashboard(userId, now);
      const details = await m.projectDetails(userId, projectId, now);
      if (details === null) throw notFound(`No project with id "${projectId}" exists.`);
      return details;
    };
    if (at !== null)
      return this.asOf.read(at, PERSONAL_DASHBOARD_READS, async (db) =>
        jsonBody(
          JSON.stringify(await read(new PersonalDashboardReadModel(db, this.url.value), new Date(at))),
        ),
      );
    return jsonBody(JSON.stringify(await read(this.dashboards, this.clock.now())));
  }
}
