import type { OnModuleInit } from '@nestjs/common';
import { IQueryHandler, Query, QueryHandler } from '@nestjs/cqrs';
import { IDENTITY_READS, IdentityReadModel } from '@flaglens/projections';
import { AS_OF_PARAMETER } from '@flaglens/contract';
import { CachedReads } from '../reads/cached-reads';
import { queryParam, readRoute } from '../reads/read-route';
import { asOfInstant } from '../common/as-of';
import { CallerCache } from '../auth/caller.cache';
import { ADMIN_TOKEN_USER_ID, adminTokenHasNoProfile } from '../auth/unleash-credentials';
import { jsonBody, type JsonBody } from '../common/json-body';
import { AsOfReads } from '../read-db/as-of-reads.service';

/** The serialised body of GET /api/admin/user/profile for one user. */
export class GetProfileQuery extends Query<JsonBody> {
  constructor(
    readonly userId: number,
    /** `?at=`, parsed (parseAsOf): the profile as of that instant; null: now */
    readonly at: string | null = null,
  ) {
    super();
  }
}

/** GET /api/admin/user/profile, declared once for its controller and the cached fast path. */
export const PROFILE_READ = readRoute({
  path: '/api/admin/user/profile',
  ask: (req, userId) => new GetProfileQuery(userId, asOfInstant(queryParam(req, AS_OF_PARAMETER))),
});
const key = (userId: number) => `profile:${userId}`;

@QueryHandler(GetProfileQuery)
export class GetProfileHandler implements IQueryHandler<GetProfileQuery, JsonBody>, OnModuleInit {
  constructor(
    private readonly identity: IdentityReadModel,
    private readonly cache: CallerCache,
    private readonly cachedReads: CachedReads,
    private readonly asOf: AsOfReads,
  ) {}

  onModuleInit(): void {
    this.cachedReads.add(PROFILE_READ, ({ userId }) => this.cache.peek<JsonBody>(key(userId)) ?? undefined);
  }

  async execute({ userId, at }: GetProfileQuery): Promise<JsonBody> {
    if (userId === ADMIN_TOKEN_USER_ID) throw adminTokenHasNoProfile(); // as Unleash: its admin token has no user
    // as of an instant (docs/design.md, "Reads as of an instant"): the caller is who the credential says now,
    // the profile that of a flaglens fed the events up to `at`; read apart from the cache, never kept in it
    if (at !== null)
      return this.asOf.read(at, [IDENTITY_READS], (db) => this.render(userId, new IdentityReadModel(db)));
    return (await this.cache.get(key(userId), async () => ({ value: await this.render(userId) })))!;
  }

  private async render(userId: number, identity = this.identity): Promise<JsonBody> {
    const p = await identity.profile(userId);
    // key order of the reference (8.x): projects, groups, rootRole, subscriptions, features, canChangePassword
    return jsonBody(
      JSON.stringify({
        projects: p.projects,
        groups: p.groups,
        rootRole: {
          id: p.rootRole.id,
          name: p.rootRole.name,
          type: p.rootRole.type,
          description: p.rootRole.description,
        },
        subscriptions: p.subscriptions,
        features: p.features,
        canChangePassword: p.canChangePassword,
      }),
    );
  }
}
