import { Controller, Get, Param, Res } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { CurrentUser } from '../auth/current-user.decorator';
import { Readable } from 'node:stream';
import { sendJson, sendJsonStream } from '../common/json-body';
import { FeatureEventsResponseDoc } from './events.docs';
import { GetFlagEventsQuery, GetLatestEventsQuery } from './get-flag-events.query';

@ApiTags('Events')
@Controller('api/admin/events')
export class EventsController {
  constructor(private readonly queries: QueryBus) {}

  @Get(':featureName')
  @ApiOperation({
    summary: 'Every event of one feature flag, newest first',
    description:
      'All events whose featureName equals the path parameter exactly (case-sensitive), ordered by createdAt desc then id desc. ' +
      'Unlike the reference system, every event is returned (not only the newest 100), and events of private projects ' +
      'the caller may not see are left out. An unknown flag gives an empty list.',
  })
  @ApiParam({ name: 'featureName', type: String })
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
  @ApiOperation({ summary: 'The newest 100 events of the whole instance (as the reference system)' })
  async latest(@CurrentUser() userId: number, @Res() res: FastifyReply): Promise<void> {
    const body = await this.queries.execute(new GetLatestEventsQuery(userId));
    await sendJson(res, body);
  }
}
