import { Controller, Get, Query, Res } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { ApiOkResponse, ApiQuery, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { ApiAdminOperation } from '../common/api-docs';
import { sendJson } from '../common/json-body';
import { badData } from '../common/unleash-errors';
import { CurrentUser } from '../auth/current-user.decorator';
import { GetLifecycleInsightsQuery } from './get-lifecycle-insights.query';
import { LifecycleInsightsDoc } from './lifecycle-insights.docs';
import { AS_OF_PARAMETER } from '@flaglens/contract';
import { AS_OF_QUERY_DOC, asOfInstant } from '../common/as-of';

/** The most project ids one `projects` filter may name. */
export const MAX_PROJECTS_FILTER = 1000;
/** A project id as the filter takes it: at most 100 characters, none of them a control character. */
const isProjectId = (p: string): boolean =>
  p.length <= 100 && [...p].every((ch) => ch.charCodeAt(0) >= 0x20 && ch.charCodeAt(0) !== 0x7f);

/**
 * `projects=a,b` → the ids; absent or empty → null (every project: the reference's UI sends `projects=` when
 * none is chosen). Empty items are ignored; a repeated parameter, an id over 100 characters or with a
 * control character, or more than 1000 ids is 400 BadDataError.
 */
export function parseProjects(v: unknown): string[] | null {
  if (v === undefined || v === '') return null;
  const message = `"projects" must be a comma-separated list of project ids (at most ${MAX_PROJECTS_FILTER})`;
  if (typeof v !== 'string') throw badData(message);
  const ids = [...new Set(v.split(',').filter((p) => p !== ''))];
  if (ids.length === 0) return null;
  if (ids.length > MAX_PROJECTS_FILTER || !ids.every(isProjectId)) throw badData(message);
  return ids.sort();
}

@ApiTags('Insights')
@Controller('api/admin/insights')
export class LifecycleInsightsController {
  constructor(private readonly queries: QueryBus) {}

  @Get('lifecycle')
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
    @Query('projects') projects: unknown,
    @Query(AS_OF_PARAMETER) at: unknown,
    @CurrentUser() userId: number,
    @Res() res: FastifyReply,
  ): Promise<void> {
    const body = await this.queries.execute(
      new GetLifecycleInsightsQuery(parseProjects(projects), userId, asOfInstant(at)),
    );
    await sendJson(res, body);
  }
}
