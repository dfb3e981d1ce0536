import { IQueryHandler, Query, QueryHandler } from '@nestjs/cqrs';
import { EventLogReadModel } from '@flaglens/projections';
import { FlagEventsCache } from '../cache/flag-events.cache';
import { jsonBody, type JsonBody } from '../common/json-body';

/** The serialised body of GET /api/admin/events/{featureName}. */
export class GetFlagEventsQuery extends Query<JsonBody> {
  constructor(readonly featureName: string) {
    super();
  }
}

@QueryHandler(GetFlagEventsQuery)
export class GetFlagEventsHandler implements IQueryHandler<GetFlagEventsQuery, JsonBody> {
  constructor(
    private readonly events: EventLogReadModel,
    private readonly cache: FlagEventsCache,
  ) {}

  async execute({ featureName }: GetFlagEventsQuery): Promise<JsonBody> {
    const cached = this.cache.get(featureName);
    if (cached !== undefined) return cached;
    const token = this.cache.begin();
    const { eventsJson, total } = await this.events.eventsOfFlag(featureName);
    // key order of the reference: version, toggleName, events, totalEvents
    const body = jsonBody(
      `{"version":1,"toggleName":${JSON.stringify(featureName)},"events":[${eventsJson}],"totalEvents":${total}}`,
    );
    this.cache.set(featureName, body, token);
    return body;
  }
}

/** The serialised body of GET /api/admin/events (the newest 100 events of the instance, as the reference). */
export class GetLatestEventsQuery extends Query<JsonBody> {}

@QueryHandler(GetLatestEventsQuery)
export class GetLatestEventsHandler implements IQueryHandler<GetLatestEventsQuery, JsonBody> {
  constructor(private readonly events: EventLogReadModel) {}

  async execute(): Promise<JsonBody> {
    const { eventsJson, total } = await this.events.latestEvents(100);
    return jsonBody(`{"version":1,"events":[${eventsJson}],"totalEvents":${total}}`);
  }
}
