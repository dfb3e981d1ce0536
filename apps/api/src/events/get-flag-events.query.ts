import { IQueryHandler, Query, QueryHandler } from '@nestjs/cqrs';
import { EventLogReadModel, IdentityReadModel } from '@flaglens/projections';
import { FlagEventsCache } from '../cache/flag-events.cache';
import { IdentityCache } from '../cache/identity.cache';
import { jsonBody, type JsonBody } from '../common/json-body';

/** The private projects the caller may not see, cached until identity changes. */
async function hiddenProjectsOf(
  cache: IdentityCache,
  identity: IdentityReadModel,
  userId: number,
): Promise<string[]> {
  return (
    (await cache.get(`hidden:${userId}`, async () => ({ value: await identity.hiddenProjects(userId) }))) ??
    []
  );
}

/** The serialised body of GET /api/admin/events/{featureName}. */
export class GetFlagEventsQuery extends Query<JsonBody> {
  constructor(
    readonly featureName: string,
    /** the caller: events of private projects they may not see are left out */
    readonly userId: number,
  ) {
    super();
  }
}

@QueryHandler(GetFlagEventsQuery)
export class GetFlagEventsHandler implements IQueryHandler<GetFlagEventsQuery, JsonBody> {
  constructor(
    private readonly events: EventLogReadModel,
    private readonly identity: IdentityReadModel,
    private readonly cache: FlagEventsCache,
    private readonly identityCache: IdentityCache,
  ) {}

  async execute({ featureName, userId }: GetFlagEventsQuery): Promise<JsonBody> {
    const hidden = await hiddenProjectsOf(this.identityCache, this.identity, userId);
    // the cache holds the full list, for callers who may see every project (admins, or no private project)
    const cached = hidden.length === 0 ? this.cache.get(featureName) : undefined;
    if (cached !== undefined) return cached;
    const token = this.cache.begin();
    const { eventsJson, total } = await this.events.eventsOfFlag(featureName, hidden);
    // key order of the reference: version, toggleName, events, totalEvents
    const body = jsonBody(
      `{"version":1,"toggleName":${JSON.stringify(featureName)},"events":[${eventsJson}],"totalEvents":${total}}`,
    );
    if (hidden.length === 0) this.cache.set(featureName, body, token);
    return body;
  }
}

/** The serialised body of GET /api/admin/events (the newest 100 events of the instance, as the reference). */
export class GetLatestEventsQuery extends Query<JsonBody> {
  constructor(readonly userId: number) {
    super();
  }
}

@QueryHandler(GetLatestEventsQuery)
export class GetLatestEventsHandler implements IQueryHandler<GetLatestEventsQuery, JsonBody> {
  constructor(
    private readonly events: EventLogReadModel,
    private readonly identity: IdentityReadModel,
  ) {}

  async execute({ userId }: GetLatestEventsQuery): Promise<JsonBody> {
    const { eventsJson, total } = await this.events.latestEvents(
      100,
      await this.identity.hiddenProjects(userId),
    );
    return jsonBody(`{"version":1,"events":[${eventsJson}],"totalEvents":${total}}`);
  }
}
