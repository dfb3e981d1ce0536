import { Controller, Get, Req, Res } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { ApiOkResponse, ApiParam, ApiQuery, ApiTags } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { CurrentUser } from '../auth/current-user.decorator';
import { ApiAdminOperation } from '../common/api-docs';
import { AS_OF_QUERY_DOC } from '../common/as-of';
import { answerRead } from '../reads/read-route';
import { PERSONAL_DASHBOARD_READ, PROJECT_DETAILS_READ } from './get-personal-dashboard.query';
import { PersonalDashboardDoc, PersonalProjectDetailsDoc } from './personal-dashboard.docs';

@ApiTags('Personal dashboard')
@Controller()
export class PersonalDashboardController {
  constructor(private readonly queries: QueryBus) {}

  @Get(PERSONAL_DASHBOARD_READ.path)
  @ApiAdminOperation({
    operationId: 'getPersonalDashboard',
    etag: true,
    summary: 'The caller’s flags and projects, every project’s owners, and the admins',
    description:
      'Unleash 8.2.0. Flags the caller created or favourited (not archived, newest first, at most 100); the ' +
      'projects they hold a role in or favourited, by name, with health, members and flags; the owners of every ' +
      'project; the users with the Admin root role.',
  })
  @ApiQuery(AS_OF_QUERY_DOC)
  @ApiOkResponse({ type: PersonalDashboardDoc })
  async dashboard(@Req() req: FastifyRequest, @CurrentUser() userId: number, @Res() res: FastifyReply) {
    await answerRead(this.queries, PERSONAL_DASHBOARD_READ, req, userId, res);
  }

  @Get(PROJECT_DETAILS_READ.path)
  @ApiAdminOperation({
    operationId: 'getPersonalDashboardProjectDetails',
    etag: true,
    summary:
      'A project on the personal dashboard: latest events, onboarding, owners, the caller’s roles, flags',
    description:
      'Unleash 8.2.0. Any project that exists, archived too; none: 404 NotFoundError "No project with id … exists."',
  })
  @ApiParam({ name: 'projectId', type: String })
  @ApiQuery(AS_OF_QUERY_DOC)
  @ApiOkResponse({ type: PersonalProjectDetailsDoc })
  async details(@Req() req: FastifyRequest, @CurrentUser() userId: number, @Res() res: FastifyReply) {
    await answerRead(this.queries, PROJECT_DETAILS_READ, req, userId, res);
  }
}
