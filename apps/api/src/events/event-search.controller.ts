import { Controller, Get, Req, Res } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { ApiOkResponse, ApiQuery, ApiTags } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { SEARCH_PARAMETERS } from '@flaglens/projections';
import { CurrentUser } from '../auth/current-user.decorator';
import { ApiAdminOperation } from '../common/api-docs';
import { sendJson } from '../common/json-body';
import { AS_OF_QUERY_DOC } from '../common/as-of';
import { EventCreatorDoc, EventSearchResponseDoc } from './events.docs';
import { EventCreatorsQuery, SearchEventsQuery } from './search-events.query';

const PARAMETER_DOCS: Record<string, string> = {
  query:
    'free text, matched case-insensitively against the event data, tags and previous data (% and _ are wildcards)',
  id: 'event ids: IS:1 or IS_ANY_OF:1,2',
  groupId: 'transaction group ids: IS:… or IS_ANY_OF:…',
  feature: 'flag names: IS:… or IS_ANY_OF:…',
  project: 'projects: IS:… or IS_ANY_OF:…',
  type: 'event types: IS:… or IS_ANY_OF:…',
  createdBy: 'ids of the users who created the events: IS:… or IS_ANY_OF:…',
  from: 'IS:yyyy-MM-dd: events created on or after that day (inclusive)',
  to: 'IS:yyyy-MM-dd: events created up to the end of that day',
  offset: 'events to skip (≤ 0: none)',
  limit: 'events per page: 1 to 1000, else 50',
  environment: 'environments: IS:… or IS_ANY_OF:…',
};

@ApiTags('Events')
@Controller('api/admin')
export class EventSearchController {
  constructor(private readonly queries: QueryBus) {}

  @Get('search/events')
  @ApiAdminOperation({
    operationId: 'searchEvents',
    etag: true,
    summary: 'Search for events',
    description:
      'As Unleash 8.2.0: the events matching every filter given (`OP:v1,v2`), newest first (createdAt desc, then ' +
      'id desc), one page of them and how many match; each event with the label and markdown summary the ' +
      "reference's event log shows. A value out of a parameter's form is 400 BadDataError. Callers who are not " +
      'root Admins see only events that have a project (and none of a private project they may not see).',
  })
  @(SEARCH_PARAMETERS.map((p) =>
    ApiQuery({ name: p.name, required: false, type: String, description: PARAMETER_DOCS[p.name] }),
  ).reduce<MethodDecorator>(
    (all, one) => (t, k, d) => {
      one(t, k, d);
      all(t, k, d);
    },
    () => undefined,
  ))
  @ApiQuery(AS_OF_QUERY_DOC)
  @ApiOkResponse({ type: EventSearchResponseDoc })
  async search(
    @Req() req: FastifyRequest,
    @CurrentUser() userId: number,
    @Res() res: FastifyReply,
  ): Promise<void> {
    const params = { ...((req.query ?? {}) as Record<string, unknown>) };
    await sendJson(res, await this.queries.execute(new SearchEventsQuery(params, userId)));
  }

  @Get('event-creators')
  @ApiAdminOperation({
    operationId: 'getEventCreators',
    etag: true,
    summary: 'Get a list of all users that have created events',
    description:
      'As Unleash 8.2.0: one entry per user id found on events (ascending; events without one last, as id 0), ' +
      "named by the user's name, else by the author name of their newest event.",
  })
  @ApiOkResponse({ type: [EventCreatorDoc] })
  async creators(@Res() res: FastifyReply): Promise<void> {
    await sendJson(res, await this.queries.execute(new EventCreatorsQuery()));
  }
}
