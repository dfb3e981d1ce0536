import type { OnModuleInit } from '@nestjs/common';
import { IQueryHandler, Query, QueryHandler } from '@nestjs/cqrs';
import { CachedReads } from '../reads/cached-reads';
import { pathParam, queryParam, readRoute } from '../reads/read-route';
import { asOfInstant } from '../common/as-of';
import { AS_OF_PARAMETER } from '@flaglens/contract';
import { EventLogReadModel } from '@flaglens/projections';
import { jsonBody, type JsonBody } from '../common/json-body';
import { Readable } from 'node:stream';
import { Visibility, visibilityKey } from '../auth/visibility.service';
import { Broadcast, FlagEventLists, flagEventsBody, FlagEventsCache } from './flag-event-lists';
import { couldBeStoredName } from '../common/stored-names';

/** The body of GET /api/admin/events/{featureName}: whole, or a stream for a long list. */
export class GetFlagEventsQuery extends Query<JsonBody | Readable> {
  constructor(
    readonly featureName: string,
    /** the caller: events naming private projects they may not see are left out */
    readonly userId: number,
    /** as of this instant (`parseAsOf`'s normal form), else null: now */
    readonly at: string | null = null,
  ) {
    super();
  }
}

/** GET /api/admin/events/{featureName}, declared once for its controller and the cached fast path. */
export const FLAG_EVENTS_READ = readRoute({
  path: '/api/admin/events/:featureName',
  ask: (req, userId) =>
    new GetFlagEventsQuery(
      String(pathParam(req, 'featureName')),
      userId,
      asOfInstant(queryParam(req, AS_OF_PARAMETER)),
    ),
});

/** The cache key of a flag's list for a visibility set. */
const listKey = (featureName: string, hidden: readonly string[]) =>
  hidden.length === 0 ? featureName : `${featureName}\u0000${visibilityKey(hidden)}`;

@QueryHandler(GetFlagEventsQuery)
export class GetFlagEventsHandler
  implements IQueryHandler<GetFlagEventsQuery, JsonBody | Readable>, OnModuleInit
{
  constructor(
    private readonly lists: FlagEventLists,
    private readonly visibility: Visibility,
    private readonly cache: FlagEventsCache,
    private readonly cachedReads: CachedReads,
  ) {}

  onModuleInit(): void {
    // the hot path, for a caller whose visibility set is cached: a whole list already in the cache, else the
    // list loaded as `execute` does
    this.cachedReads.add(
      FLAG_EVENTS_READ,
      (query) => {
        const asked = this.cachedAsk(query);
        const body = asked && this.cache.get(listKey(asked.featureName, asked.hidden));
        return body && !(body instanceof Broadcast) ? body : undefined;
      },
      async (query) => {
        const asked = this.cachedAsk(query);
        if (!asked) return undefined;
        const body = await this.list(asked.featureName, asked.hidden);
        return body instanceof Readable ? { stream: body } : { body };
      },
    );
  }

  async execute({ featureName, userId, at }: GetFlagEventsQuery): Promise<JsonBody | Readable> {
    // a name no stored flag can have: the reference's answer for an unknown flag, at once
    if (!couldBeStoredName(featureName)) return flagEventsBody(featureName, '', 0);
    const hidden = await this.visibility.hiddenProjects(userId);
    if (at !== null)
      // as of an instant: never from the cache, nor kept in it (docs/design.md, "Reads as of an instant")
      return this.lists.open(
        `${listKey(featureName, hidden)}\u0000at\u0000${at}`,
        featureName,
        hidden,
        false,
        at,
      );
    return this.list(featureName, hidden);
  }

  /**
   * The flag a query asks for and the projects hidden from its caller, when both are at hand (no database). The
   * fast path never asks for a read as of an instant (`CachedReads` declines every request with `at`).
   */
  private cachedAsk({
    featureName,
    userId,
  }: GetFlagEventsQuery): { featureName: string; hidden: string[] } | undefined {
    if (!couldBeStoredName(featureName)) return undefined;
    const hidden = this.visibility.cachedHiddenProjects(userId);
    return hidden && { featureName, hidden };
  }

  /**
   * The flag's list without the `hidden` projects' events. The cache holds the full lists, for callers who may
   * see every project (admins, or no private project); concurrent requests of one list with one visibility set
   * share one read.
   */
  private list(featureName: string, hidden: string[]): Promise<JsonBody | Readable> {
    return this.lists.open(listKey(featureName, hidden), featureName, hidden, hidden.length === 0);
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
