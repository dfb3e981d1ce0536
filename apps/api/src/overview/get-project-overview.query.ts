import { IQueryHandler, Query, QueryHandler } from '@nestjs/cqrs';
import { Clock } from '@flaglens/config';
import { IdentityReadModel, OverviewReadModel } from '@flaglens/projections';
import { notFound } from '../common/unleash-errors';
import type { JsonBody } from '../common/json-body';
import { OverviewCache, overviewBodies, type OverviewAccess } from '../cache/overview.cache';

/** The serialised body of GET /api/admin/projects/{projectId}/overview (api-spec 2.12), as of the clock's "now". */
export class GetProjectOverviewQuery extends Query<JsonBody> {
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
export class GetProjectOverviewHandler implements IQueryHandler<GetProjectOverviewQuery, JsonBody> {
  constructor(
    private readonly overview: OverviewReadModel,
    private readonly identity: IdentityReadModel,
    private readonly clock: Clock,
    private readonly cache: OverviewCache,
  ) {}

  async execute({ projectId, userId, archivedFlags }: GetProjectOverviewQuery): Promise<JsonBody> {
    const now = this.clock.now();
    const token = this.cache.begin();
    const cached = this.cache.body(projectId, archivedFlags, now.getTime());
    const [access, bodies] = await Promise.all([
      this.accessOf(projectId, userId),
      cached ??
        this.overview.snapshot(projectId, now, archivedFlags).then((s) => {
          if (!s) return null;
          const b = overviewBodies(s);
          this.cache.setBody(projectId, archivedFlags, b, token);
          return b;
        }),
    ]);
    // a private project is visible to its members and admins only; to anyone else it does not exist;
    // semantics §3.1: the reference's ProjectStore.get throws NotFoundError('No project found')
    if (!access.visible || !bodies) throw notFound('No project found');
    return access.favorite ? bodies.favorite : bodies.notFavorite;
  }

  private async accessOf(projectId: string, userId: number | null): Promise<OverviewAccess> {
    if (userId === null) return { visible: true, favorite: false };
    const cached = this.cache.accessOf(projectId, userId);
    if (cached) return cached;
    const token = this.cache.begin();
    const [visible, favorite] = await Promise.all([
      this.identity.canSeeProject(userId, projectId),
      this.identity.isFavoriteProject(userId, projectId),
    ]);
    const access = { visible, favorite };
    this.cache.setAccess(projectId, userId, access, token);
    return access;
  }
}
