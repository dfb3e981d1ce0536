import { IQueryHandler, Query, QueryHandler } from '@nestjs/cqrs';
import { EventLogReadModel } from '@flaglens/projections';
import { jsonBody, type JsonBody } from '../common/json-body';
import type { Readable } from 'node:stream';
import { Visibility, visibilityKey } from '../auth/visibility.service';
import { FlagEventLists, flagEventsBody } from './flag-event-lists';
import { couldBeStoredName } from '../common/stored-names';

/** The body of GET /api/admin/events/{featureName}: whole, or a stream for a long list. */
export class GetFlagEventsQuery extends Query<JsonBody | Readable> {
  constructor(
    readonly featureName: string,
    /** the caller: events naming private projects they may not see are left out */
    readonly userId: number,
  ) {
    super();
  }
}

@QueryHandler(GetFlagEventsQuery)
export class GetFlagEventsHandler implements IQueryHandler<GetFlagEventsQuery, JsonBody | Readable> {
  constructor(
    private readonly lists: FlagEventLists,
    private readonly visibility: Visibility,
  ) {}

  async execute({ featureName, userId }: GetFlagEventsQuery): Promise<JsonBody | Readable> {
    // a name no stored flag can have: the reference's answer for an unknown flag, at once
    if (!couldBeStoredName(featureName)) return flagEventsBody(featureName, '', 0);
    const hidden = await this.visibility.hiddenProjects(userId);
    // the cache holds the full lists, for callers who may see every project (admins, or no private project);
    // concurrent requests of one list with one visibility set share one read
    const everything = hidden.length === 0;
    const key = everything ? featureName : `${featureName}\u0000${visibilityKey(hidden)}`;
    return this.lists.open(key, featureName, hidden, everything);
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
    private readonly visibility: Visibility,
  ) {}

  async execute({ userId }: GetLatestEventsQuery): Promise<JsonBody> {
    const { eventsJson, total } = await this.events.latestEvents(
      100,
      await this.visibility.hiddenProjects(userId),
    );
    return jsonBody(`{"version":1,"events":[${eventsJson}],"totalEvents":${total}}`);
  }
}
