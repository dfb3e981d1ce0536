import { Controller, Get, Req, Res } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { ApiOkResponse, ApiParam, ApiQuery, ApiTags } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { CurrentUser } from '../auth/current-user.decorator';
import { ApiAdminOperation } from '../common/api-docs';
import { AS_OF_QUERY_DOC } from '../common/as-of';
import { answerRead } from '../reads/read-route';
import { OVERVIEW_READ } from './get-project-overview.query';
import { ProjectOverviewDoc } from './overview.docs';

@ApiTags('Projects')
@Controller()
export class OverviewController {
  constructor(private readonly queries: QueryBus) {}

  @Get(OVERVIEW_READ.path)
  @ApiAdminOperation({
    operationId: 'getProjectOverview',
    etag: true,
    summary: 'Get an overview of a project: statistics, health, members, environments and flag-type counts',
    description:
      'Computed at read time from the projections (stats windows: the last 30 days and the 30 before). ' +
      'An unknown project, or a private one the caller is not a member of: 404 NotFoundError "No project found".',
  })
  @ApiParam({ name: 'projectId', type: String })
  @ApiOkResponse({ type: ProjectOverviewDoc })
  @ApiQuery(AS_OF_QUERY_DOC)
  @ApiQuery({
    name: 'archived',
    required: false,
    description:
      'Undeclared in the reference, kept for parity: any non-empty value (even "false") makes featureTypeCounts count archived flags',
  })
  async overview(
    @Req() req: FastifyRequest,
    @CurrentUser() userId: number,
    @Res() res: FastifyReply,
  ): Promise<void> {
    await answerRead(this.queries, OVERVIEW_READ, req, userId, res);
  }
}
