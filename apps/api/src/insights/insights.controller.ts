import { Controller, Get, Query, Res } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { ApiOkResponse, ApiQuery, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { ApiAdminOperation } from '../common/api-docs';
import { sendJson } from '../common/json-body';
import { badData } from '../common/unleash-errors';
import { EXECUTIVE_HEADERS, GetInsightsQuery } from './get-insights.query';
import { CurrentUser } from '../auth/current-user.decorator';
import { InstanceInsightsDoc } from './insights.docs';
import { AS_OF_PARAMETER } from '@flaglens/contract';
import { AS_OF_QUERY_DOC, asOfInstant } from '../common/as-of';

/** `YYYY-MM-DD` that is a real calendar day; '' or absent → no bound (the reference's UI sends `from=&to=`). */
export function parseDay(name: string, v: unknown): string | null {
  if (v === undefined || v === '') return null;
  if (typeof v === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(v)) {
    const t = Date.parse(`${v}T00:00:00Z`);
    if (!Number.isNaN(t) && new Date(t).toISOString().slice(0, 10) === v) return v;
  }
  throw badData(`"${name}" must be a date formatted as YYYY-MM-DD`);
}

@ApiTags('Insights')
@Controller('api/admin')
export class InsightsController {
  constructor(private readonly queries: QueryBus) {}

  @Get('insights')
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
    @Query('from') from: unknown,
    @Query('to') to: unknown,
    @Query(AS_OF_PARAMETER) at: unknown,
    @CurrentUser() userId: number,
    @Res() res: FastifyReply,
  ): Promise<void> {
    const range = { from: parseDay('from', from), to: parseDay('to', to) };
    const body = await this.queries.execute(new GetInsightsQuery(range, userId, asOfInstant(at)));
    await sendJson(res, body);
  }

  @Get('dashboard/executive')
  @ApiAdminOperation({
    operationId: 'getExecutiveDashboard',
    deprecated: true,
    etag: true,
    summary: 'Deprecated: the instance insights of every week; use GET /api/admin/insights',
    description:
      'The same body as GET /api/admin/insights without a range. Answers with `Deprecation: true` and ' +
      '`Link: </api/admin/insights>; rel="successor-version"`.',
  })
  @ApiOkResponse({ type: InstanceInsightsDoc })
  async executive(@CurrentUser() userId: number, @Res() res: FastifyReply): Promise<void> {
    const body = await this.queries.execute(new GetInsightsQuery({ from: null, to: null }, userId));
    void res.headers(EXECUTIVE_HEADERS);
    await sendJson(res, body);
  }
}
