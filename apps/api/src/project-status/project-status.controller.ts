import { Controller, Get, Req, Res } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { ApiOkResponse, ApiParam, ApiQuery, ApiTags } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { CurrentUser } from '../auth/current-user.decorator';
import { ApiAdminOperation } from '../common/api-docs';
import { AS_OF_QUERY_DOC } from '../common/as-of';
import { answerRead } from '../reads/read-route';
import { PROJECT_STATUS_READ } from './get-project-status.query';
import { ProjectStatusDoc } from './project-status.docs';

@ApiTags('Projects')
@Controller()
export class ProjectStatusController {
  constructor(private readonly queries: QueryBus) {}

  @Get(PROJECT_STATUS_READ.path)
  @ApiAdminOperation({
    operationId: 'getProjectStatus',
    etag: true,
    summary: 'Get the status of a project: resources, daily activity, health, lifecycle summary, stale flags',
    description:
      'Unleash 8.2.0. Computed on each read: the project’s events per UTC day over the last year, its health and ' +
      'technical debt now, its flags by lifecycle stage with the average days spent in each, and its stale ' +
      'flags. An unknown project answers zeros, as Unleash does; a private project the caller may not see: 404.',
  })
  @ApiParam({ name: 'projectId', type: String })
  @ApiQuery(AS_OF_QUERY_DOC)
  @ApiOkResponse({ type: ProjectStatusDoc })
  async status(
    @Req() req: FastifyRequest,
    @CurrentUser() userId: number,
    @Res() res: FastifyReply,
  ): Promise<void> {
    await answerRead(this.queries, PROJECT_STATUS_READ, req, userId, res);
  }
}
