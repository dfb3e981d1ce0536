import { Controller, Get, Param, Query, Req, Res, UseGuards } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import {
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  ApiQuery,
  ApiTags,
} from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { AdminAuthGuard } from '../auth/admin-auth.guard';
import { GetProjectOverviewQuery } from './get-project-overview.query';
import { ProjectOverviewDoc } from './overview.docs';

/**
 * The caller's user id, as the auth guard leaves it on the request (`req.user.id`).
 * TO BE WIRED TO THE IDENTITY BRANCH AT MERGE: its guard sets the authenticated user; until then there is
 * no caller identity and `favorite` is false.
 */
export function callerUserId(req: Request): number | null {
  const id = (req as Request & { user?: { id?: unknown } }).user?.id;
  return typeof id === 'number' && Number.isInteger(id) ? id : null;
}

@ApiTags('Projects')
@Controller('api/admin/projects')
@UseGuards(AdminAuthGuard)
export class OverviewController {
  constructor(private readonly queries: QueryBus) {}

  @Get(':projectId/overview')
  @ApiOperation({
    summary: 'Statistics, health, members, environments and flag-type counts of one project (api-spec 2.12)',
    description:
      'Computed at read time from the projections (stats windows: the last 30 days and the 30 before). ' +
      'Unknown project: 404 NotFoundError "No project found".',
  })
  @ApiParam({ name: 'projectId', type: String })
  @ApiOkResponse({ type: ProjectOverviewDoc })
  @ApiNotFoundResponse({ description: 'NotFoundError "No project found" in the error envelope' })
  @ApiQuery({
    name: 'archived',
    required: false,
    description:
      'Undeclared in the reference, kept for parity: any non-empty value (even "false") makes featureTypeCounts count archived flags',
  })
  async overview(
    @Param('projectId') projectId: string,
    @Query('archived') archived: unknown,
    @Req() req: Request,
    @Res() res: Response,
  ): Promise<void> {
    // the reference does not coerce the parameter: any non-empty string is truthy (semantics §3)
    const archivedFlags = typeof archived === 'string' ? archived !== '' : archived !== undefined;
    const body = await this.queries.execute(
      new GetProjectOverviewQuery(projectId, callerUserId(req), archivedFlags),
    );
    res.status(200).type('application/json; charset=utf-8').send(JSON.stringify(body));
  }
}
