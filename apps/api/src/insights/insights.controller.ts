import { Controller, Get, Req, Res } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { ApiOkResponse, ApiQuery, ApiTags } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiAdminOperation } from '../common/api-docs';
import { answerRead } from '../reads/read-route';
import { EXECUTIVE_READ, INSIGHTS_READ } from './get-insights.query';
import { CurrentUser } from '../auth/current-user.decorator';
import { InstanceInsightsDoc } from './insights.docs';
import { AS_OF_QUERY_DOC } from '../common/as-of';

@ApiTags('Insights')
@Controller()
export class InsightsController {
  constructor(private readonly queries: QueryBus) {}

  @Get(INSIGHTS_READ.path)
  @ApiAdminOperation({
    operationId: 'getInstanceInsights',
    etag: true,
    summary: 'Instance insights: weekly trends for every week of the history',
    description:
      'Rows whose date (the end of the described UTC day: Sunday, or today for the current week) is within ' +
      '[from, to], both inclusive and optional; a malformed date is 400 BadDataError. Weeks are ISO week-years ' +
      '(IYYY-IW). Rows and figures of private projects the caller may not see are left out.',
  })
  @ApiQuery({ name: 'from', required: false, example: '2026-01-01' })
  @ApiQuery({ name: 'to', required: false, example: '2026-03-31' })
  @ApiQuery(AS_OF_QUERY_DOC)
  @ApiOkResponse({ type: InstanceInsightsDoc })
  async insights(
    @Req() req: FastifyRequest,
    @CurrentUser() userId: number,
    @Res() res: FastifyReply,
  ): Promise<void> {
    await answerRead(this.queries, INSIGHTS_READ, req, userId, res);
  }

  @Get(EXECUTIVE_READ.path)
  @ApiAdminOperation({
    operationId: 'getExecutiveDashboard',
    deprecated: true,
    etag: true,
    summary: 'Deprecated: the instance insights of every week; use GET /api/admin/insights',
    description:
      'The same body as GET /api/admin/insights without a range. Answers with `Deprecation: true` and ' +
      '`Link: </api/admin/insights>; rel="successor-version"`.',
  })
  @ApiQuery(AS_OF_QUERY_DOC)
  @ApiOkResponse({ type: InstanceInsightsDoc })
  async executive(
    @Req() req: FastifyRequest,
    @CurrentUser() userId: number,
    @Res() res: FastifyReply,
  ): Promise<void> {
    await answerRead(this.queries, EXECUTIVE_READ, req, userId, res);
  }
}
