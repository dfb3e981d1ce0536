import { IQueryHandler, Query, QueryHandler } from '@nestjs/cqrs';
import { Clock } from '@flaglens/config';
import { IdentityReadModel, OverviewReadModel } from '@flaglens/projections';
import { notFound } from '../common/unleash-errors';

/** The body of GET /api/admin/projects/{projectId}/overview (api-spec 2.12), as of the clock's "now". */
export class GetProjectOverviewQuery extends Query<Record<string, unknown>> {
  constructor(
    readonly projectId: string,
    /** The caller's user id (favourite); null for a caller without one (admin tokens). */
    readonly userId: number | null,
    /** `?archived=<non-empty>`: featureTypeCounts of archived flags (as the reference) */
    readonly archivedFlags = false,
  ) {
    super();
  }
}

@QueryHandler(GetProjectOverviewQuery)
export class GetProjectOverviewHandler implements IQueryHandler<
  GetProjectOverviewQuery,
  Record<string, unknown>
> {
  constructor(
    private readonly overview: OverviewReadModel,
    private readonly identity: IdentityReadModel,
    private readonly clock: Clock,
  ) {}

  async execute({
    projectId,
    userId,
    archivedFlags,
  }: GetProjectOverviewQuery): Promise<Record<string, unknown>> {
    // no stored project id holds U+0000 (Postgres text cannot): unknown, without asking the database
    if (projectId.includes('\u0000')) throw notFound('No project found');
    // a private project is visible to its members and admins only; to anyone else it does not exist
    if (userId !== null && !(await this.identity.canSeeProject(userId, projectId)))
      throw notFound('No project found');
    const body = await this.overview.overview(projectId, this.clock.now(), userId, archivedFlags);
    // semantics §3.1: the reference's ProjectStore.get throws NotFoundError('No project found')
    if (!body) throw notFound('No project found');
    return body;
  }
}
