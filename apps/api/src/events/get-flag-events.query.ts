import { IQueryHandler, Query, QueryHandler } from '@nestjs/cqrs';
import { EventLogReadModel } from '@flaglens/projections';
import { FlagEventsCache } from '../cache/flag-events.cache';

/** The serialised body of GET /api/admin/events/{featureName}. */
export class GetFlagEventsQuery extends Query<string> {
  constructor(readonly featureName: string) {
    super();
  }
}

@QueryHandler(GetFlagEventsQuery)
export class GetFlagEventsHandler implements IQueryHandler<GetFlagEventsQuery, string> {
  constructor(
    private readonly events: EventLogReadModel,
    private readonly cache: FlagEventsCache,
  ) {}

  async execute({ featureName }: GetFlagEventsQuery): Promise<string> {
    const cached = this.cache.get(featureName);
    if (cached !== undefined) return cached;
    const token = this.cache.begin();
    const { eventsJson, total } = await this.events.eventsOfFlag(featureName);
    // key order of the reference: version, toggleName, events, totalEvents
    const body = `{"version":1,"toggleName":${JSON.stringify(featureName)},"events":[${eventsJson}],"totalEvents":${total}}`;
    this.cache.set(featureName, body, token);
    return body;
  }
}

/** The serialised body of GET /api/admin/events (the newest 100 events of the instance, as the reference). */
export class GetLatestEventsQuery extends Query<string> {}

@QueryHandler(GetLatestEventsQuery)
export class GetLatestEventsHandler implements IQueryHandler<GetLatestEventsQuery, string> {
  constructor(private readonly events: EventLogReadModel) {}

  async execute(): Promise<string> {
    const { eventsJson, total } = await this.events.latestEvents(100);
    return `{"version":1,"events":[${eventsJson}],"totalEvents":${total}}`;
  }
}
