import etag from 'etag';
import fresh from 'fresh';
import type { Readable } from 'node:stream';
import type { FastifyReply, FastifyRequest } from 'fastify';

/** A serialised JSON response body with its (weak) ETag, computed once so cached bodies cost no hashing. */
export interface JsonBody {
  bytes: Buffer;
  etag: string;
}

export function jsonBody(json: string): JsonBody {
  const bytes = Buffer.from(json, 'utf8');
  return { bytes, etag: etag(bytes, { weak: true }) };
}

const JSON_TYPE = 'application/json; charset=utf-8';

/**
 * Sends a prepared body with its ETag. A GET whose If-None-Match names that ETag (and does not ask
 * `Cache-Control: no-cache`) is answered 304 with no body, as Express's `res.send` would (`fresh`).
 */
export function sendJson(reply: FastifyReply, body: JsonBody, status = 200): void {
  reply.header('etag', body.etag);
  const req = reply.request;
  if (
    status === 200 &&
    (req.method === 'GET' || req.method === 'HEAD') &&
    req.headers['if-none-match'] !== undefined &&
    fresh(req.headers, { etag: body.etag })
  ) {
    void reply.code(304).send();
    return;
  }
  void reply.code(status).type(JSON_TYPE).send(body.bytes);
}

/** Sends a JSON body as it is read (a long list: chunked, no ETag). */
export function sendJsonStream(reply: FastifyReply, body: Readable): void {
  void reply.code(200).type(JSON_TYPE).send(body);
}

/** Sends a JSON text as it is (no ETag). */
export function sendJsonText(reply: FastifyReply, json: string, status = 200): void {
  void reply.code(status).type(JSON_TYPE).send(json);
}

/** The request's path as sent (not decoded), without the query: what Express called `req.path`. */
export function pathOf(req: Pick<FastifyRequest, 'url'>): string {
  const q = req.url.indexOf('?');
  return q === -1 ? req.url : req.url.slice(0, q);
}
