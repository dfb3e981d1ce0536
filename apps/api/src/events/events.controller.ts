import { Controller, Get, Query, Req, Res } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { ApiOkResponse, ApiParam, ApiQuery, ApiTags } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { CurrentUser } from '../auth/current-user.decorator';
import { ApiAdminOperation } from '../common/api-docs';
import { sendJson } from '../common/json-body';
import { AS_OF_QUERY_DOC } from '../common/as-of';
import { answerRead } from '../reads/read-route';
import { FeatureEventsResponseDoc } from './events.docs';
import { FLAG_EVENTS_READ, GetLatestEventsQuery } from './get-flag-events.query';
import { ProjectEventsQuery, searchRefused } from './search-events.query';

@ApiTags('Events')
@Controller()
export class EventsController {
  constructor(private readonly queries: QueryBus) {}

  @Get(FLAG_EVENTS_READ.path)
  @ApiAdminOperation({
    operationId: 'getEventsForToggle',
    etag: true,
    summary: 'Get all events related to a specific feature flag, newest first',
    description:
      'All events whose featureName equals the path parameter exactly (case-sensitive), ordered by createdAt desc then id desc. ' +
      'Unlike the reference system, every event is returned (not only the newest 100), and events of private projects ' +
      'the caller may not see are left out. An unknown flag gives an empty list.',
  })
  @ApiParam({ name: 'featureName', type: String, description: 'exact, case-sensitive' })
  @ApiQuery(AS_OF_QUERY_DOC)
  @ApiOkResponse({ type: FeatureEventsResponseDoc })
  async flagEvents(
    @Req() req: FastifyRequest,
    @CurrentUser() userId: number,
    @Res() res: FastifyReply,
  ): Promise<void> {
    await answerRead(this.queries, FLAG_EVENTS_READ, req, userId, res);
  }

  @Get('api/admin/events')
  @ApiAdminOperation({
    operationId: 'getEvents',
    etag: true,
    summary: 'The newest 100 events of the whole instance, or the newest 50 of a project',
    description:
      'As the reference system: the 100 most recent events of every flag and project, newest first; ' +
      'events of private projects the caller may not see are left out, and totalEvents counts what the caller may see. ' +
      'With `project` (Unleash 8.2.0): the newest 50 events of that project (a comma separates several), and how many it has.',
  })
  @ApiQuery({ name: 'project', required: false, type: String })
  @ApiOkResponse({ type: FeatureEventsResponseDoc })
  async latest(
    @CurrentUser() userId: number,
    @Query('project') project: unknown,
    @Res() res: FastifyReply,
  ): Promise<void> {
    if (project !== undefined && typeof project !== 'string')
      throw searchRefused(
        `The \`/query/project\` property must be string. You sent ${JSON.stringify(project)}.`,
        '/query/project',
      );
    const body = await this.queries.execute(
      project ? new ProjectEventsQuery(project, userId) : new GetLatestEventsQuery(userId),
    );
    await sendJson(res, body);
  }
}
