import { applyDecorators, Controller, Get, Query, Req, Res } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { ApiOkResponse, ApiQuery, ApiTags } from '@nestjs/swagger';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AS_OF_PARAMETER } from '@flaglens/contract';
import { AppConfig, Clock } from '@flaglens/config';
import {
  EventLogReadModel,
  identityEventTypes,
  type EventPageCursor,
  type EventScope,
} from '@flaglens/projections';
import { CurrentUser } from '../auth/current-user.decorator';
import { Visibility } from '../auth/visibility.service';
import { ApiAdminOperation } from '../common/api-docs';
import { asOfInstant } from '../common/as-of';
import { jsonBody, sendJson } from '../common/json-body';
import { decodeCursor, encodeCursor } from '../common/event-page-cursor';
import { requestRefused } from '../common/unleash-errors';
import { DiffDoc, DiffEventsDoc } from './diff.docs';
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

/** The parameters of a diff and of its events' pages, documented. */
const DiffRangeQuery = () =>
  applyDecorators(
    ApiQuery({ name: 'path', required: true, example: '/api/admin/projects/default/overview' }),
    ApiQuery({ name: 'from', required: true, example: '2026-11-01T00:00:00Z' }),
    ApiQuery({ name: 'to', required: false, example: '2026-11-22T00:00:00Z' }),
  );

/** A diff's parameters, checked. */
interface DiffRange {
  path: string;
  url: URL;
  from: string;
  to: string;
  scope: EventScope;
}

/**
 * `GET /api/admin/diff?path=&from=&to=`: what changed in one read's answer between two instants. The answers
 * are the read's own as of each instant (the read is run with `at=`, with the caller's credentials: access is
 * judged now, as for `at=`), `patch` the RFC 6902 operations from one to the other (json-diff.ts: lists of
 * named things compared by name), and `events` the visible events of the read's scope in (`from`, `to`],
 * oldest first, a page at a time (`eventsNext`, `GET /api/admin/diff/events`). docs/design.md, "What changed between two instants".
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
      "the read's scope, oldest first: at most DIFF_MAX_EVENTS (1,000 by default), and `eventsNext`, the path of " +
      'the next page of them (GET /api/admin/diff/events), or null when they are all here. A malformed or ' +
      'reversed range: 400 BadDataError. A thing found at one instant and not at the other (a project ' +
      'created or deleted in the range) is null there; any other refusal of the read (404, 403) is answered as it is.',
  })
  @DiffRangeQuery()
  @ApiOkResponse({ type: DiffDoc })
  async diff(
    @Query('path') path: unknown,
    @Query('from') fromParam: unknown,
    @Query('to') toParam: unknown,
    @Req() req: FastifyRequest,
    @CurrentUser() userId: number,
    @Res() res: FastifyReply,
  ): Promise<void> {
    const range = this.range(path, fromParam, toParam, userId);
    const { url, from, to } = range;
    const [events, before, after] = await Promise.all([
      this.eventsPage(range, userId, null),
      this.answerAt(req, url, from),
      this.answerAt(req, url, to),
    ]);
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
        `{"path":${JSON.stringify(range.path)},"from":${JSON.stringify(from)},"to":${JSON.stringify(to)},` +
          `"before":${beforeBody},"after":${afterBody},"patch":${JSON.stringify(patch)},${events}}`,
      ),
    );
  }

  @Get('diff/events')
  @ApiAdminOperation({
    operationId: 'getDiffEvents',
    summary: "flaglens only: the next page of a diff's events",
    description:
      "The events in (from, to] within the read's scope, oldest first, after `after` (the place `eventsNext` " +
      "names): at most DIFF_MAX_EVENTS, and the next page's path, or null at the end. The diff's parameters, and " +
      "the same refusals; a malformed `after`: 400 BadDataError. Neither instant's answer is read.",
  })
  @DiffRangeQuery()
  @ApiQuery({
    name: 'after',
    required: false,
    description: 'the place to go on from, as `eventsNext` gives it',
  })
  @ApiOkResponse({ type: DiffEventsDoc })
  async diffEvents(
    @Query('path') path: unknown,
    @Query('from') fromParam: unknown,
    @Query('to') toParam: unknown,
    @Query('after') afterParam: unknown,
    @CurrentUser() userId: number,
    @Res() res: FastifyReply,
  ): Promise<void> {
    const range = this.range(path, fromParam, toParam, userId);
    const cursor = decodeCursor(afterParam);
    if (cursor === undefined)
      throw requestRefused('"after" is not a place in the events: take it from "eventsNext"', '/query/after');
    const events = await this.eventsPage(range, userId, cursor);
    await sendJson(
      res,
      jsonBody(
        `{"path":${JSON.stringify(range.path)},"from":${JSON.stringify(range.from)},"to":${JSON.stringify(range.to)},${events}}`,
      ),
    );
  }

  /** The diff's parameters checked: the read, its scope and the two instants (`to` defaults to now). */
  private range(path: unknown, fromParam: unknown, toParam: unknown, userId: number): DiffRange {
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
    return { path, url, from, to, scope: read.r.scope(read.m!, url.searchParams, userId) };
  }

  /**
   * A page of the range's events as the answer's `"events":[…],"eventsNext":…` members: the next page's path
   * carries `to` as an instant, so every page reads the same range even when `to` was left to now.
   */
  private async eventsPage(
    range: DiffRange,
    userId: number,
    cursor: EventPageCursor | null,
  ): Promise<string> {
    const hidden = await this.visibility.hiddenProjects(userId);
    const page = await this.events.eventsBetween(
      range.scope,
      range.from,
      range.to,
      hidden,
      this.config.DIFF_MAX_EVENTS,
      cursor,
    );
    const next =
      page.next &&
      `/api/admin/diff/events?${new URLSearchParams({
        path: range.path,
        from: range.from,
        to: range.to,
        after: encodeCursor(page.next),
      }).toString()}`;
    return `"events":[${page.eventsJson}],"eventsNext":${JSON.stringify(next)}`;
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
