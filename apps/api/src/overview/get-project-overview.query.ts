import type { OnModuleInit } from '@nestjs/common';
import { IQueryHandler, Query, QueryHandler } from '@nestjs/cqrs';
import { ADMIN_TOKEN_USER_ID } from '../auth/unleash-credentials';
import { AS_OF_PARAMETER } from '@flaglens/contract';
import { CachedReads } from '../reads/cached-reads';
import { pathParam, queryParam, readRoute } from '../reads/read-route';
import { asOfInstant } from '../common/as-of';
import { Clock } from '@flaglens/config';
import {
  IdentityReadModel,
  OVERVIEW_AS_OF_READS,
  OverviewReadModel,
  withFavorite,
} from '@flaglens/projections';
import { AsOfReads } from '../read-db/as-of-reads.service';
import { notFound } from '../common/unleash-errors';
import { jsonBody, type JsonBody } from '../common/json-body';
import { couldBeStoredName } from '../common/stored-names';
import { accessKey, bodiesKey, OverviewCache, overviewBodies, type OverviewAccess } from './overview.cache';

/** The serialised body of GET /api/admin/projects/{projectId}/overview (api-spec 2.12), as of the clock's "now". */
export class GetProjectOverviewQuery extends Query<JsonBody> {
  constructor(
    readonly projectId: string,
    /** The caller's user id (favourite); null for a caller without one (admin tokens). */
    readonly userId: number | null,
    /** `?archived=<non-empty>`: featureTypeCounts of archived flags (as the reference) */
    readonly archivedFlags = false,
    /** `?at=`, parsed (parseAsOf): the overview as of that instant; null: now */
    readonly at: string | null = null,
  ) {
    super();
  }
}

/** `?archived=`: the reference does not coerce the parameter: any non-empty string is truthy (semantics §3). */
export function archivedFlagsOf(archived: unknown): boolean {
  return typeof archived === 'string' ? archived !== '' : archived !== undefined;
}

/** GET /api/admin/projects/{projectId}/overview, declared once for its controller and the cached fast path. */
export const OVERVIEW_READ = readRoute({
  path: '/api/admin/projects/:projectId/overview',
  ask: (req, userId) =>
    new GetProjectOverviewQuery(
      String(pathParam(req, 'projectId')),
      userId,
      archivedFlagsOf(queryParam(req, 'archived')),
      asOfInstant(queryParam(req, AS_OF_PARAMETER)),
    ),
});

@QueryHandler(GetProjectOverviewQuery)
export class GetProjectOverviewHandler
  implements IQueryHandler<GetProjectOverviewQuery, JsonBody>, OnModuleInit
{
  constructor(
    private readonly overview: OverviewReadModel,
    private readonly identity: IdentityReadModel,
    private readonly clock: Clock,
    private readonly cache: OverviewCache,
    private readonly cachedReads: CachedReads,
    private readonly asOf: AsOfReads,
  ) {}

  onModuleInit(): void {
    // the hot path: the caller's access and the project's bodies both cached (a hidden or unknown project,
    // and anything not cached, take the full path)
    this.cachedReads.add(
      OVERVIEW_READ,
      ({ projectId, userId, archivedFlags }) => {
        if (userId === null || !couldBeStoredName(projectId)) return undefined;
        const access = this.cache.access.get(accessKey(projectId, userId));
        if (!access?.visible) return undefined;
        const bodies = this.cache.bodies.get(bodiesKey(projectId, archivedFlags), this.clock.now().getTime());
        if (!bodies) return undefined;
        return access.favorite ? bodies.favorite : bodies.notFavorite;
      },
      async ({ projectId, userId, archivedFlags }) => {
        // a miss for a cached caller: the same read, and the same 404 for a hidden or unknown project
        const body = await this.body(projectId, userId, archivedFlags);
        return body ? { body } : { error: notFound('No project found') };
      },
    );
  }

  async execute({ projectId, userId, archivedFlags, at }: GetProjectOverviewQuery): Promise<JsonBody> {
    const body =
      at === null
        ? await this.body(projectId, userId, archivedFlags)
        : await this.bodyAsOf(projectId, userId, archivedFlags, at);
    // semantics §3.1: the reference's ProjectStore.get throws NotFoundError('No project found')
    if (!body) throw notFound('No project found');
    return body;
  }

  /** The overview's body for the caller; null when the project is unknown or hidden from them. */
  private async body(
    projectId: string,
    userId: number | null,
    archivedFlags: boolean,
  ): Promise<JsonBody | null> {
    // an id no stored project can have (longer than the contract allows, U+0000 or a lone surrogate):
    // unknown at once, without asking the database or filling a cache
    if (!couldBeStoredName(projectId)) return null;
    // a private project is visible to its members and admins only; to anyone else it does not exist, and
    // costs them what an unknown project costs: the same access statement (cached alike), no snapshot read
    const access = await this.accessOf(projectId, userId);
    if (!access.visible) return null;
    // a snapshot is shared by the requests that arrive while it is being read (a burst of misses costs one
    // statement), and kept for the instants it is exact for
    const now = this.clock.now();
    const key = bodiesKey(projectId, archivedFlags);
    const bodies = await this.cache.bodies.getOrLoad(
      key,
      async () => {
        // the state kept from an earlier read, exact now: only the activity is read; else both, the state kept
        const known = this.cache.states.get(key, now.getTime());
        const token = this.cache.states.begin();
        const { snapshot, state } = await this.overview.read(projectId, now, archivedFlags, known);
        if (state && state !== known)
          this.cache.states.setIfUnchanged(
            key,
            { value: state, validFrom: state.at, validUntil: state.validUntil },
            token,
          );
        return snapshot ? overviewBodies(snapshot) : { value: null, keep: false };
      },
      now.getTime(),
    );
    if (!bodies) return null;
    return access.favorite ? bodies.favorite : bodies.notFavorite;
  }

  /**
   * The overview's body as of `at` (docs/design.md, "Reads as of an instant"): whether the caller may see the
   * project is judged now, as for the overview of now; the body, the caller's favourite included, is that of a
   * flaglens fed the events up to `at` with its clock at `at`. Read apart from the caches, never kept in them
   * (the cached fast path declines every request with `at`).
   */
  private async bodyAsOf(
    projectId: string,
    userId: number | null,
    archivedFlags: boolean,
    at: string,
  ): Promise<JsonBody | null> {
    if (!couldBeStoredName(projectId)) return null;
    if (!(await this.accessOf(projectId, userId)).visible) return null;
    const then = await this.asOf.read(at, OVERVIEW_AS_OF_READS, async (db) => {
      const snapshot = await new OverviewReadModel(db).snapshot(projectId, new Date(at), archivedFlags);
      const favorite =
        snapshot !== null &&
        userId !== null &&
        userId !== ADMIN_TOKEN_USER_ID &&
        (await new IdentityReadModel(db).accessToProject(userId, projectId)).favorite;
      return { snapshot, favorite };
    });
    if (!then.snapshot) return null;
    return jsonBody(JSON.stringify(withFavorite(then.snapshot.body, then.favorite)));
  }

  private accessOf(projectId: string, userId: number | null): Promise<OverviewAccess> {
    if (userId === null) return Promise.resolve({ visible: true, favorite: false });
    return this.cache.access.getOrLoad(accessKey(projectId, userId), async () => ({
      // an Unleash admin API token sees every project, as there
      value:
        userId === ADMIN_TOKEN_USER_ID
          ? { visible: true, favorite: false }
          : await this.identity.accessToProject(userId, projectId),
    }));
  }
}
