import { IQueryHandler, Query, QueryHandler } from '@nestjs/cqrs';
import { Clock } from '@flaglens/config';
import { AS_OF_PARAMETER } from '@flaglens/contract';
import { PROJECT_STATUS_READS, ProjectStatusReadModel } from '@flaglens/projections';
import { Visibility } from '../auth/visibility.service';
import { asOfInstant } from '../common/as-of';
import { jsonBody, type JsonBody } from '../common/json-body';
import { notFound } from '../common/unleash-errors';
import { AsOfReads } from '../read-db/as-of-reads.service';
import { pathParam, queryParam, readRoute } from '../reads/read-route';

/** A project's status (Unleash 8.2.0), as of the clock or of `at`. */
export class GetProjectStatusQuery extends Query<JsonBody> {
  constructor(
    readonly projectId: string,
    readonly userId: number,
    /** `?at=`, parsed (parseAsOf): the status as of that instant; null: now */
    readonly at: string | null = null,
  ) {
    super();
  }
}

/** GET /api/admin/projects/{projectId}/status, declared once (docs/architecture.md, "One request path"). */
export const PROJECT_STATUS_READ = readRoute({
  path: '/api/admin/projects/:projectId/status',
  ask: (req, userId) =>
    new GetProjectStatusQuery(
      String(pathParam(req, 'projectId') ?? ''),
      userId,
      asOfInstant(queryParam(req, AS_OF_PARAMETER)),
    ),
});

@QueryHandler(GetProjectStatusQuery)
export class GetProjectStatusHandler implements IQueryHandler<GetProjectStatusQuery, JsonBody> {
  constructor(
    private readonly status: ProjectStatusReadModel,
    private readonly clock: Clock,
    private readonly visibility: Visibility,
    private readonly asOf: AsOfReads,
  ) {}

  async execute({ projectId, userId, at }: GetProjectStatusQuery): Promise<JsonBody> {
    // Unleash answers any id (an unknown one with zeros); a private project hidden from the caller is not
    // shown, as everywhere else (docs/deviations.md)
    if ((await this.visibility.hiddenProjects(userId)).includes(projectId))
      throw notFound('No project found');
    // computed on each read, as Unleash does: its activity, health and archived counts move with the clock
    if (at !== null)
      return this.asOf.read(at, PROJECT_STATUS_READS, async (db) =>
        jsonBody(JSON.stringify(await new ProjectStatusReadModel(db, 'log').status(projectId, new Date(at)))),
      );
    return jsonBody(JSON.stringify(await this.status.status(projectId, this.clock.now())));
  }
}
