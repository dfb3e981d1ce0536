import { IQueryHandler, Query, QueryHandler } from '@nestjs/cqrs';
import { IdentityReadModel } from '@flaglens/projections';
import { CallerCache } from '../auth/caller.cache';

/** The serialised body of GET /api/admin/user/profile for one user. */
export class GetProfileQuery extends Query<string> {
  constructor(readonly userId: number) {
    super();
  }
}

@QueryHandler(GetProfileQuery)
export class GetProfileHandler implements IQueryHandler<GetProfileQuery, string> {
  constructor(
    private readonly identity: IdentityReadModel,
    private readonly cache: CallerCache,
  ) {}

  async execute({ userId }: GetProfileQuery): Promise<string> {
    return (await this.cache.get(`profile:${userId}`, async () => ({ value: await this.render(userId) })))!;
  }

  private async render(userId: number): Promise<string> {
    const p = await this.identity.profile(userId);
    // key order of the reference: projects, rootRole, subscriptions, features
    return JSON.stringify({
      projects: p.projects,
      rootRole: {
        id: p.rootRole.id,
        name: p.rootRole.name,
        type: p.rootRole.type,
        description: p.rootRole.description,
      },
      subscriptions: p.subscriptions,
      features: p.features,
    });
  }
}
