import { Controller, Get, Param, Query, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import {
  EventLogReadModel,
  FlagStateReadModel,
  IdentityReadModel,
  isRootAdminRole,
  ProjectsReadModel,
} from '@flaglens/projections';
import { CurrentUser } from '../auth/current-user.decorator';
import { Visibility } from '../auth/visibility.service';
import { jsonBody, sendJson } from '../common/json-body';
import { ApiError, badData, notFound } from '../common/unleash-errors';
import { decodeCursor, encodeCursor } from '../common/event-page-cursor';
import { OperationsService } from './operations.service';

const forbidden = () =>
  new ApiError(403, 'NoAccessError', 'The Operations page is for operators: users whose root role is Admin.');

function limitOf(v: unknown, max: number, fallback: number): number {
  if (v === undefined || v === '') return fallback;
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1 || n > max) throw badData(`"limit" must be an integer from 1 to ${max}`);
  return n;
}

/**
 * The web console's reads that the documented api does not offer (under /api/admin, so authenticated by
 * the same guard, and filtered by the same visibility): flag names for the search, a flag's events a page
 * at a time, the visible projects, and the Operations page's status (operators only: root role Admin).
 */
@ApiExcludeController()
@Controller('api/admin/console')
export class ConsoleController {
  constructor(
    private readonly eventLog: EventLogReadModel,
    private readonly flagStates: FlagStateReadModel,
    private readonly projectsReads: ProjectsReadModel,
    private readonly visibility: Visibility,
    private readonly identity: IdentityReadModel,
    private readonly operations: OperationsService,
  ) {}

  @Get('flags')
  async flags(
    @Query('q') q: unknown,
    @Query('limit') limit: unknown,
    @CurrentUser() userId: number,
    @Res() res: FastifyReply,
  ): Promise<void> {
    const query = typeof q === 'string' ? q.slice(0, 200).split('\u0000').join('') : '';
    const n = limitOf(limit, 50, 20);
    const flags = await this.flagStates.flagNames(query, await this.visibility.hiddenProjects(userId), n);
    await sendJson(res, jsonBody(JSON.stringify({ flags })));
  }

  @Get('flags/:featureName/events')
  async events(
    @Param('featureName') featureName: string,
    @Query('cursor') cursor: unknown,
    @Query('limit') limit: unknown,
    @CurrentUser() userId: number,
    @Res() res: FastifyReply,
  ): Promise<void> {
    const c = decodeCursor(cursor);
    if (c === undefined) throw badData('"cursor" is not one this api gave');
    const n = limitOf(limit, 500, 100);
    const hidden = await this.visibility.hiddenProjects(userId);
    const page = featureName.includes('\u0000')
      ? { eventsJson: '', total: 0, next: null }
      : await this.eventLog.eventPage(featureName, hidden, c, n);
    await sendJson(
      res,
      jsonBody(
        `{"toggleName":${JSON.stringify(featureName)},"events":[${page.eventsJson}],"totalEvents":${page.total === null ? 'null' : page.total},"next":${JSON.stringify(page.next && encodeCursor(page.next))}}`,
      ),
    );
  }

  @Get('projects')
  async projects(@CurrentUser() userId: number, @Res() res: FastifyReply): Promise<void> {
    const projects = await this.projectsReads.visibleProjects(await this.visibility.hiddenProjects(userId));
    await sendJson(res, jsonBody(JSON.stringify({ projects })));
  }

  @Get('operations')
  async status(@CurrentUser() userId: number, @Res() res: FastifyReply): Promise<void> {
    await this.requireOperator(userId);
    res.header('cache-control', 'no-store');
    await sendJson(res, jsonBody(JSON.stringify(await this.operations.status())));
  }

  @Get('operations/dead-letters/:id')
  async deadLetter(
    @Param('id') id: string,
    @CurrentUser() userId: number,
    @Res() res: FastifyReply,
  ): Promise<void> {
    await this.requireOperator(userId);
    if (!/^\d{1,15}$/.test(id)) throw badData('"id" must be a dead letter id');
    const d = await this.operations.deadLetter(Number(id));
    if (!d) throw notFound(`There is no dead letter ${id}.`);
    res.header('cache-control', 'no-store');
    await sendJson(res, jsonBody(JSON.stringify(d)));
  }

  /** Operators: root Admins (isRootAdminRole), the users who see every event. */
  private async requireOperator(userId: number): Promise<void> {
    const role = await this.identity.rootRoleOf(userId);
    if (!isRootAdminRole(role)) throw forbidden();
  }
}
