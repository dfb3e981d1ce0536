import { Controller, Get, Query, Req, Res } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { ApiOkResponse, ApiQuery, ApiTags } from '@nestjs/swagger';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AS_OF_PARAMETER } from '@flaglens/contract';
import { AppConfig, Clock } from '@flaglens/config';
import { EventLogReadModel, identityEventTypes, type EventScope } from '@flaglens/projections';
import { CurrentUser } from '../auth/current-user.decorator';
import { Visibility } from '../auth/visibility.service';
import { ApiAdminOperation } from '../common/api-docs';
import { asOfInstant } from '../common/as-of';
import { jsonBody, sendJson } from '../common/json-body';
import { badData, requestRefused } from '../common/unleash-errors';
import { DiffDoc } from './diff.docs';
import { jsonDiff, type Json } from '@flaglens/contract/json-diff';

/**
 * The reads that answer as of an instant (`at=`), by path, with whose events explain a change of their answer.
 * Path parameters are taken as sent (percent-decoded).
 */
const READS: {
  pattern: RegExp;
  scope: (m: RegExpMatchArray, q: URLSearchParams, userId: number) => EventScope;
}[] = [
  {
    pattern: /^\/api\/admin\/projects\/([^/]+)\/(overview|status)$/,
    scope: (m) => ({ kind: 'project', projectId: decodeURIComponent(m[1]) }),
  },
  {
    pattern: /^\/api\/admin\/events\/([^/]+)$/,
    scope: (m) => ({ kind: 'flag', featureName: decodeURIComponent(m[1]) }),
  },
  {
    pattern: /^\/api\/admin\/user\/profile$/,
    scope: (_m, _q, userId) => ({ kind: 'identity', userId, types: identityEventTypes() }),
  },
  {
    pattern: /^\/api\/admin\/events$/,
    scope: (_m, q) => {
      const project = q.get('project');
      return project ? { kind: 'project', projectId: project } : { kind: 'instance' };
    },
  },
  { pattern: /^\/api\/admin\/search\/events$/, scope: () => ({ kind: 'instance' }) },
  { pattern: /^\/api\/admin\/personal-dashboard$/, scope: () => ({ kind: 'instance' }) },
  {
    pattern: /^\/api\/admin\/personal-dashboard\/([^/]+)$/,
    scope: (m) => ({ kind: 'project', projectId: decodeURIComponent(m[1]) }),
  },
  { pattern: /^\/api\/admin\/insights(\/lifecycle)?$/, scope: () => ({ kind: 'instance' }) },
  { pattern: /^\/api\/admin\/dashboard\/executive$/, scope: () => ({ kind: 'instance' }) },
];

/**
 * `GET /api/admin/diff?path=&from=&to=`: what changed in one read's answer between two instants. The answers
 * are the read's own as of each instant (the read is run with `at=`, with the caller's credentials: access is
 * judged now, as for `at=`), `patch` the RFC 6902 operations from one to the other (json-diff.ts: lists of
 * named things compared by name), and `events` the visible events of the read's scope in (`from`, `to`],
 * oldest first. docs/design.md, "What changed between two instants".
 */
@ApiTags('Diff')
@Controller('api/admin')
export class DiffController {
  constructor(
    private readonly adapter: HttpAdapterHost,
    private readonly events: EventLogReadModel,
    private readonly visibility: Visibility,
    private readonly clock: Clock,
    private readonly config: AppConfig,
  ) {}

  @Get('diff')
  @ApiAdminOperation({
    operationId: 'getDiff',
    summary: 'flaglens only: what changed in a read between two instants',
    description:
      "The read of `path` (one that takes `at=`: a project overview, a flag's events, the profile, the event " +
      'list and search, the insights) as of `from` and as of `to` (default now), the RFC 6902 patch from one ' +
      'to the other (lists of things with a name or an id compared by it), and the events in (from, to] within ' +
      "the read's scope. A malformed or reversed range: 400 BadDataError; a range holding more events of its " +
      'scope than DIFF_MAX_EVENTS (10,000 by default): 400 saying so, at once. A thing found at one instant and not at the other (a project ' +
      'created or deleted in the range) is null there; any other refusal of the read (404, 403) is answered as it is.',
  })
  @ApiQuery({ name: 'path', required: true, example: '/api/admin/projects/default/overview' })
  @ApiQuery({ name: 'from', required: true, example: '2026-11-01T00:00:00Z' })
  @ApiQuery({ name: 'to', required: false, example: '2026-11-22T00:00:00Z' })
  @ApiOkResponse({ type: DiffDoc })
  async diff(
    @Query('path') path: unknown,
    @Query('from') fromParam: unknown,
    @Query('to') toParam: unknown,
    @Req() req: FastifyRequest,
    @CurrentUser() userId: number,
    @Res() res: FastifyReply,
  ): Promise<void> {
    if (typeof path !== 'string' || path === '') throw requestRefused('"path" is required', '/query/path');
    let url: URL;
    try {
      url = new URL(path, 'http://flaglens.invalid');
    } catch {
      throw requestRefused('"path" is not a path', '/query/path');
    }
    if (url.origin !== 'http://flaglens.invalid' || !path.startsWith('/'))
      throw requestRefused('"path" is a path of this api, starting with /api/admin/', '/query/path');
    const read = READS.map((r) => ({ r, m: url.pathname.match(r.pattern) })).find((x) => x.m !== null);
    if (!read)
      throw requestRefused(`${url.pathname} is not a read that answers as of an instant`, '/query/path');
    if (url.searchParams.has(AS_OF_PARAMETER))
      throw requestRefused('"path" takes no "at": "from" and "to" are the instants', '/query/path');
    if (fromParam === undefined || fromParam === '')
      throw requestRefused('"from" is required', '/query/from');
    const from = asOfInstant(fromParam, 'from')!;
    const to =
      toParam === undefined || toParam === '' ? this.clock.now().toISOString() : asOfInstant(toParam, 'to')!;
    if (Date.parse(from) >= Date.parse(to)) throw requestRefused('"from" must be before "to"', '/query/from');

    // the range's events first: one holding too many is refused at once, before two reads as of an instant that
    // may each take up to the statement timeout (or be refused for another reason) on a large history
    const scope = read.r.scope(read.m!, url.searchParams, userId);
    const max = this.config.DIFF_MAX_EVENTS;
    const hidden = await this.visibility.hiddenProjects(userId);
    const events = await this.events.eventsBetween(scope, from, to, hidden, max);
    if (events === null)
      throw badData(
        `between ${from} and ${to} there are more than ${max} events of this read's scope: narrow the range`,
      );
    const [before, after] = await Promise.all([this.answerAt(req, url, from), this.answerAt(req, url, to)]);
    // A thing found at one instant and not at the other (a project created, or deleted, in the range: access is
    // judged now, so a 404 beside a 200 is its absence then) is null there. Any other refusal (an unknown or
    // hidden project: 404 at both; 403) answers the diff as the read answers itself.
    const absent = (a: { status: number }, other: { status: number }) =>
      a.status === 404 && other.status === 200;
    const refused = [before, after].find((a, i) => a.status !== 200 && !absent(a, i === 0 ? after : before));
    if (refused) {
      void res.status(refused.status).header('content-type', 'application/json; charset=utf-8');
      await res.send(refused.body);
      return;
    }
    const [beforeBody, afterBody] = [before, after].map((a) => (a.status === 200 ? a.body : 'null'));
    const patch = jsonDiff(JSON.parse(beforeBody) as Json, JSON.parse(afterBody) as Json);
    await sendJson(
      res,
      jsonBody(
        `{"path":${JSON.stringify(path)},"from":${JSON.stringify(from)},"to":${JSON.stringify(to)},` +
          `"before":${beforeBody},"after":${afterBody},"patch":${JSON.stringify(patch)},"events":[${events.eventsJson}]}`,
      ),
    );
  }

  /** The read's own answer as of `at`, through the whole request path, with the caller's credentials. */
  private async answerAt(
    req: FastifyRequest,
    url: URL,
    at: string,
  ): Promise<{ status: number; body: string }> {
    const query = new URLSearchParams(url.searchParams);
    query.set(AS_OF_PARAMETER, at);
    const fastify = this.adapter.httpAdapter.getInstance<FastifyInstance>();
    const headers: Record<string, string> = { 'accept-encoding': 'identity' };
    if (req.headers.authorization) headers.authorization = req.headers.authorization;
    if (req.headers.cookie) headers.cookie = req.headers.cookie;
    const r = await fastify.inject({ method: 'GET', url: `${url.pathname}?${query.toString()}`, headers });
    return { status: r.statusCode, body: r.body };
  }
}
