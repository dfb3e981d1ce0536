import type { Query, QueryBus } from '@nestjs/cqrs';
import type { FastifyReply } from 'fastify';
import { Readable } from 'node:stream';
import { sendJson, sendJsonStream, type JsonBody } from '../common/json-body';

/** What a route's declaration reads of a request: its path parameters and its query string. */
export interface RequestParts {
  params?: unknown;
  query?: unknown;
}

/** The answer of a read: a body (with ETag), or a stream for a long list. */
export type ReadAnswer = JsonBody | Readable;

/**
 * A read, declared once (docs/architecture.md, "One request path"): its path as Fastify matches it, how a
 * request's parameters become its query (parsed and checked here only: a malformed one throws the reference's
 * 400), and the headers its answers carry. The controller answers it through `answerRead`; the cached fast path
 * (`CachedReads`) uses the same declaration, so a route's parameters are read in one place and its lookup and
 * loader take the query, never the request.
 */
export interface ReadRoute<Q extends Query<ReadAnswer>> {
  /** e.g. `/api/admin/projects/:projectId/overview` (Nest's `@Get` and Fastify's `routeOptions.url` alike) */
  readonly path: string;
  /** The query of a request by an authenticated caller; throws an ApiError for a malformed parameter. */
  readonly ask: (req: RequestParts, userId: number) => Q;
  /** Headers of every answer (e.g. the deprecated route's successor). */
  readonly headers?: Readonly<Record<string, string>>;
}

export function readRoute<Q extends Query<ReadAnswer>>(route: ReadRoute<Q>): ReadRoute<Q> {
  return route;
}

/** A path parameter as sent (Fastify gives strings; anything else is treated as absent by the routes). */
export const pathParam = (req: RequestParts, name: string): unknown =>
  (req.params as Record<string, unknown> | undefined)?.[name];

/** A query-string parameter as sent: a string, an array of them (repeated), or undefined. */
export const queryParam = (req: RequestParts, name: string): unknown =>
  (req.query as Record<string, unknown> | undefined)?.[name];

/** Sends a read's answer with the route's headers: a body (ETag, 304, encodings) or a stream. */
export async function sendRead(
  route: ReadRoute<Query<ReadAnswer>>,
  res: FastifyReply,
  answer: ReadAnswer,
): Promise<void> {
  if (route.headers) void res.headers(route.headers);
  if (answer instanceof Readable) sendJsonStream(res, answer);
  else await sendJson(res, answer);
}

/** A controller's handler of a read: the declared query of the request, executed, and its answer sent. */
export async function answerRead<Q extends Query<ReadAnswer>>(
  queries: QueryBus,
  route: ReadRoute<Q>,
  req: RequestParts,
  userId: number,
  res: FastifyReply,
): Promise<void> {
  await sendRead(route, res, await queries.execute(route.ask(req, userId)));
}
