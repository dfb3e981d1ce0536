import { IQueryHandler, Query, QueryHandler } from '@nestjs/cqrs';
import { Clock } from '@flaglens/config';
import { IdentityReadModel, OverviewReadModel, snapshotValidAt } from '@flaglens/projections';
import { notFound } from '../common/unleash-errors';
import type { JsonBody } from '../common/json-body';
import {
  OverviewCache,
  overviewBodies,
  type OverviewAccess,
  type OverviewBodies,
  type OverviewCacheToken,
} from '../cache/overview.cache';

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

  private readonly inFlight = new Map<
    string,
    { token: OverviewCacheToken; at: number; bodies: Promise<OverviewBodies | null> }
  >();

  async execute({ projectId, userId, archivedFlags }: GetProjectOverviewQuery): Promise<JsonBody> {
    // no stored project id holds U+0000 (Postgres text cannot): unknown, without asking the database
    if (projectId.includes('\u0000')) throw notFound('No project found');
    const now = this.clock.now();
    const token = this.cache.begin();
    const [access, bodies] = await Promise.all([
      this.accessOf(projectId, userId),
      this.cache.body(projectId, archivedFlags, now.getTime()) ??
        this.compute(projectId, archivedFlags, now, token),
    ]);
    // a private project is visible to its members and admins only; to anyone else it does not exist;
    // semantics §3.1: the reference's ProjectStore.get throws NotFoundError('No project found')
    if (!access.visible || !bodies) throw notFound('No project found');
    return access.favorite ? bodies.favorite : bodies.notFavorite;
  }

  /**
   * A fresh snapshot, shared by the requests that arrive while it is being read (no change notice in between,
   * and their instant inside its validity): a burst of misses costs one statement, not one each.
   */
  private async compute(
    projectId: string,
    archivedFlags: boolean,
    now: Date,
    token: OverviewCacheToken,
  ): Promise<OverviewBodies | null> {
    const key = `${archivedFlags ? 'a' : 'l'}:${projectId}`;
    const running = this.inFlight.get(key);
    if (
      running &&
      running.token.seq === token.seq &&
      running.token.schema === token.schema &&
      running.at <= now.getTime()
    ) {
      const b = await running.bodies;
      if (b === null || snapshotValidAt(b, now.getTime())) return b;
    }
    const bodies = this.overview.snapshot(projectId, now, archivedFlags).then((s) => {
      if (!s) return null;
      const b = overviewBodies(s);
      this.cache.setBody(projectId, archivedFlags, b, token);
      return b;
    });
    const entry = { token, at: now.getTime(), bodies };
    this.inFlight.set(key, entry);
    try {
      return await bodies;
    } finally {
      if (this.inFlight.get(key) === entry) this.inFlight.delete(key);
    }
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
