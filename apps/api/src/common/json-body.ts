import etag from 'etag';
import type { Response } from 'express';

/** A serialised JSON response body with its (weak) ETag, computed once so cached bodies cost no hashing. */
export interface JsonBody {
  bytes: Buffer;
  etag: string;
}

export function jsonBody(json: string): JsonBody {
  const bytes = Buffer.from(json, 'utf8');
  return { bytes, etag: etag(bytes, { weak: true }) };
}

/** Sends a prepared body; Express still answers 304 when the client's If-None-Match matches. */
export function sendJson(res: Response, body: JsonBody, status = 200): void {
  res.status(status).type('application/json; charset=utf-8').setHeader('ETag', body.etag);
  res.send(body.bytes);
}
