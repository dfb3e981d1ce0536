import type { OnModuleInit } from '@nestjs/common';
import { IQueryHandler, Query, QueryHandler } from '@nestjs/cqrs';
import { IdentityReadModel } from '@flaglens/projections';
import { CachedReads } from '../auth/cached-reads';
import { CallerCache } from '../auth/caller.cache';
import { jsonBody, type JsonBody } from '../common/json-body';

/** The serialised body of GET /api/admin/user/profile for one user. */
export class GetProfileQuery extends Query<JsonBody> {
  constructor(readonly userId: number) {
    super();
  }
}

export const PROFILE_ROUTE = '/api/admin/user/profile';
const key = (userId: number) => `profile:${userId}`;

@QueryHandler(GetProfileQuery)
export class GetProfileHandler implements IQueryHandler<GetProfileQuery, JsonBody>, OnModuleInit {
  constructor(
    private readonly identity: IdentityReadModel,
    private readonly cache: CallerCache,
    private readonly cachedReads: CachedReads,
  ) {}

  onModuleInit(): void {
    this.cachedReads.add(PROFILE_ROUTE, (_req, userId) => {
      const body = this.cache.peek<JsonBody>(key(userId));
      return body ? { body } : undefined;
    });
  }

  async execute({ userId }: GetProfileQuery): Promise<JsonBody> {
    return (await this.cache.get(key(userId), async () => ({ value: await this.render(userId) })))!;
  }

  private async render(userId: number): Promise<JsonBody> {
    const p = await this.identity.profile(userId);
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
