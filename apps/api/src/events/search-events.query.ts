import { Injectable } from '@nestjs/common';
import { IQueryHandler, Query, QueryHandler } from '@nestjs/cqrs';
import { AppConfig, unleashUrl } from '@flaglens/config';
import {
  EventLogReadModel,
  EventSummaries,
  isSearchRefusal,
  parseEventSearch,
  parseOperatorValue,
  READS_ANYTHING,
  wireFromStored,
  type EventSearch,
} from '@flaglens/projections';
import { jsonBody, type JsonBody } from '../common/json-body';
import { requestRefused } from '../common/unleash-errors';
import { ChangeDroppedCache } from '../read-db/change-dropped.cache';
import { ChangeListener } from '../read-db/change-listener.service';
import { ProjectionReads } from '../read-db/projection-reads.service';
import { Visibility, visibilityKey } from '../auth/visibility.service';

/**
 * Answers of the event search, the event creators and the project event lists, by what was asked and what
 * the caller may see. Any committed batch can change them (a new event, a renamed user): every notice drops
 * them all.
 */
@Injectable()
export class EventSearchCache extends ChangeDroppedCache<JsonBody> {
  constructor(config: AppConfig, changes: ChangeListener, reads: ProjectionReads) {
    super(changes, reads, {
      maxBytes: Math.max(1, Math.floor(config.API_CACHE_MB / 4)) * 1024 * 1024,
      sizeOf: (b, key) => b.bytes.length + key.length,
      reads: READS_ANYTHING,
    });
  }
}

/** The reference's 400 for a parameter its OpenAPI schema refuses (or one its database fails on). */
export const searchRefused = requestRefused;

/** `GET /api/admin/search/events`: the query string as parsed, and the caller. */
export class SearchEventsQuery extends Query<JsonBody> {
  constructor(
    readonly params: Record<string, unknown>,
    readonly userId: number,
  ) {
    super();
  }
}

/** What a caller may see of the log: everything (a root Admin), or events with a project, but hidden ones. */
async function scopeOf(
  visibility: Visibility,
  userId: number,
): Promise<{ restricted: boolean; hidden: string[] }> {
  const restricted = !(await visibility.isRootAdmin(userId));
  return { restricted, hidden: restricted ? await visibility.hiddenProjects(userId) : [] };
}

const scopeKey = (s: { restricted: boolean; hidden: string[] }) =>
  s.restricted ? `r${visibilityKey(s.hidden)}` : 'all';

@QueryHandler(SearchEventsQuery)
export class SearchEventsHandler implements IQueryHandler<SearchEventsQuery, JsonBody> {
  private readonly summaries: EventSummaries;

  constructor(
    config: AppConfig,
    private readonly events: EventLogReadModel,
    private readonly visibility: Visibility,
    private readonly cache: EventSearchCache,
  ) {
    this.summaries = new EventSummaries(unleashUrl(config));
  }

  async execute({ params, userId }: SearchEventsQuery): Promise<JsonBody> {
    const search = parseEventSearch(params);
    if (isSearchRefusal(search)) throw searchRefused(search.message, search.path);
    const scope = await scopeOf(this.visibility, userId);
    return this.cache.getOrLoad(`search|${scopeKey(scope)}|${JSON.stringify(search)}`, async () => ({
      value: await this.page(search, scope),
    }));
  }

  private async page(
    search: EventSearch,
    scope: { restricted: boolean; hidden: string[] },
  ): Promise<JsonBody> {
    const { bodies, total } = await this.events.searchEvents(search, scope.restricted, scope.hidden);
    const events = bodies.map((body) => {
      const wire = wireFromStored(body);
      const { label, summary } = this.summaries.format(
        JSON.parse(wire) as Parameters<EventSummaries['format']>[0],
      );
      // the reference's key order: the event's keys, then label and summary
      return `${wire.slice(0, -1)},"label":${JSON.stringify(label)},"summary":${JSON.stringify(summary)}}`;
    });
    return jsonBody(`{"events":[${events.join(',')}],"total":${total}}`);
  }
}

/** `GET /api/admin/event-creators`. */
export class EventCreatorsQuery extends Query<JsonBody> {}

@QueryHandler(EventCreatorsQuery)
export class EventCreatorsHandler implements IQueryHandler<EventCreatorsQuery, JsonBody> {
  constructor(
    private readonly events: EventLogReadModel,
    private readonly cache: EventSearchCache,
  ) {}

  async execute(): Promise<JsonBody> {
    return this.cache.getOrLoad('creators', async () => ({
      value: jsonBody(JSON.stringify(await this.events.eventCreators())),
    }));
  }
}

/**
 * `GET /api/admin/events?project=…`: as Unleash 8.2.0, the event search for `project=IS:<value>` (a comma
 * separates several projects; a value the search cannot read filters nothing), its newest 50 events and
 * how many match, in the event list's shape.
 */
export class ProjectEventsQuery extends Query<JsonBody> {
  constructor(
    readonly project: string,
    readonly userId: number,
  ) {
    super();
  }
}

@QueryHandler(ProjectEventsQuery)
export class ProjectEventsHandler implements IQueryHandler<ProjectEventsQuery, JsonBody> {
  constructor(
    private readonly events: EventLogReadModel,
    private readonly visibility: Visibility,
    private readonly cache: EventSearchCache,
  ) {}

  async execute({ project, userId }: ProjectEventsQuery): Promise<JsonBody> {
    const parsed = parseOperatorValue(`IS:${project}`);
    if (project.includes('\u0000'))
      throw searchRefused('The `/query/project` parameter must not contain U+0000.', '/query/project');
    const search: EventSearch = {
      in: parsed ? [{ column: 'project', values: parsed.values }] : [],
      from: null,
      before: null,
      query: null,
      at: null,
      limit: 50,
      offset: 0,
    };
    const scope = await scopeOf(this.visibility, userId);
    return this.cache.getOrLoad(`project|${scopeKey(scope)}|${JSON.stringify(search)}`, async () => {
      const { bodies, total } = await this.events.searchEvents(search, scope.restricted, scope.hidden);
      return {
        value: jsonBody(
          `{"version":1,"events":[${bodies.map(wireFromStored).join(',')}],"totalEvents":${total}}`,
        ),
      };
    });
  }
}
