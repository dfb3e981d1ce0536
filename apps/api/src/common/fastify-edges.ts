import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { pathOf, sendJsonText } from './json-body';
import { badData } from './unleash-errors';

/**
 * Fastify's `frameworkErrors`: errors raised while routing, before any Nest code runs. A malformed
 * percent-escape in the path is a 400 BadDataError (the reference answers with a stack trace); an
 * over-long path parameter the same.
 */
export function rejectBadUrl(
  error: Error & { code?: string },
  req: FastifyRequest,
  reply: FastifyReply,
): void {
  const path = pathOf(req).slice(0, 200);
  const message =
    error.code === 'FST_ERR_MAX_PARAM_LENGTH'
      ? `A path parameter is too long in ${JSON.stringify(path)}`
      : `Failed to decode param in path ${JSON.stringify(path)}`;
  sendJsonText(reply, JSON.stringify(badData(message).toBody()), 400);
}

/** The largest request body read (and dropped) before answering 413: every route is a GET. */
export const MAX_IGNORED_BODY_BYTES = 64 * 1024;

/**
 * Every route is a read: like the reference's GET handlers, the api ignores a request body of any content
 * type instead of answering 415 for types it has no parser for. The body is still read (so the connection
 * stays usable) up to a bound; a larger one is 413.
 */
export function ignoreRequestBodies(fastify: FastifyInstance): void {
  fastify.removeAllContentTypeParsers();
  fastify.addContentTypeParser(
    '*',
    { parseAs: 'buffer', bodyLimit: MAX_IGNORED_BODY_BYTES },
    (_req: FastifyRequest, _body: Buffer, done: (err: Error | null, body?: unknown) => void) =>
      done(null, undefined),
  );
}
