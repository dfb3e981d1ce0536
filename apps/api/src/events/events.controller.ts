import { Controller, Get, Param, Res } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { ApiOkResponse, ApiParam, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { CurrentUser } from '../auth/current-user.decorator';
import { Readable } from 'node:stream';
import { ApiAdminOperation } from '../common/api-docs';
import { sendJson, sendJsonStream } from '../common/json-body';
import { FeatureEventsResponseDoc } from './events.docs';
import { GetFlagEventsQuery, GetLatestEventsQuery } from './get-flag-events.query';

@ApiTags('Events')
@Controller('api/admin/events')
export class EventsController {
  constructor(private readonly queries: QueryBus) {}

  @Get(':featureName')
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
  @ApiOkResponse({ type: FeatureEventsResponseDoc })
  async flagEvents(
    @Param('featureName') featureName: string,
    @CurrentUser() userId: number,
    @Res() res: FastifyReply,
  ): Promise<void> {
    const body = await this.queries.execute(new GetFlagEventsQuery(featureName, userId));
    if (body instanceof Readable) sendJsonStream(res, body);
    else await sendJson(res, body);
  }

  @Get()
  @ApiAdminOperation({
    operationId: 'getEvents',
    etag: true,
    summary: 'The newest 100 events of the whole instance',
    description:
      'As the reference system: the 100 most recent events of every flag and project, newest first; ' +
      'events of private projects the caller may not see are left out, and totalEvents counts what the caller may see.',
  })
  @ApiOkResponse({ type: FeatureEventsResponseDoc })
  async latest(@CurrentUser() userId: number, @Res() res: FastifyReply): Promise<void> {
    const body = await this.queries.execute(new GetLatestEventsQuery(userId));
    await sendJson(res, body);
  }
}
