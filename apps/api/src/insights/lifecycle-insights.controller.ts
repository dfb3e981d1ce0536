import { Controller, Get, Req, Res } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { ApiOkResponse, ApiQuery, ApiTags } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiAdminOperation } from '../common/api-docs';
import { answerRead } from '../reads/read-route';
import { CurrentUser } from '../auth/current-user.decorator';
import { LIFECYCLE_INSIGHTS_READ } from './get-lifecycle-insights.query';
import { LifecycleInsightsDoc } from './lifecycle-insights.docs';
import { AS_OF_QUERY_DOC } from '../common/as-of';

@ApiTags('Insights')
@Controller()
export class LifecycleInsightsController {
  constructor(private readonly queries: QueryBus) {}

  @Get(LIFECYCLE_INSIGHTS_READ.path)
  @ApiAdminOperation({
    operationId: 'getLifecycleTrends',
    etag: true,
    summary: 'Lifecycle summary: flags in each lifecycle stage now, by category, and their median days',
    description:
      'Unleash 8.x Enterprise. develop, production and cleanup are the lifecycle stages pre-live, live and ' +
      'completed: the flags (not archived) whose current stage it is, by category (experiment → ' +
      'experimental, release → release, any other type → permanent), split by whether they entered it within ' +
      'the last 7 days; the median days they have been in it, and the median days flags spent in it before ' +
      'a later stage. `projects` (comma-separated ids, optional) keeps the flags of those projects. Flags of ' +
      'private projects the caller may not see are left out.',
  })
  @ApiQuery({ name: 'projects', required: false, example: 'default,checkout' })
  @ApiQuery(AS_OF_QUERY_DOC)
  @ApiOkResponse({ type: LifecycleInsightsDoc })
  async lifecycle(
    @Req() req: FastifyRequest,
    @CurrentUser() userId: number,
    @Res() res: FastifyReply,
  ): Promise<void> {
    await answerRead(this.queries, LIFECYCLE_INSIGHTS_READ, req, userId, res);
  }
}
