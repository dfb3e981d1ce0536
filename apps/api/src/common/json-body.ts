import etag from 'etag';
import fresh from 'fresh';
import { promisify } from 'node:util';
import { brotliCompress, constants as zlib, gzip, type BrotliOptions, type ZlibOptions } from 'node:zlib';
import type { Readable } from 'node:stream';
import { Negotiator } from '@fastify/accept-negotiator';
import { LRUCache } from 'lru-cache';
import type { FastifyReply, FastifyRequest } from 'fastify';

/** The encodings a prepared body may be sent in besides identity, preferred first on equal q-values. */
export type Encoding = 'br' | 'gzip';

/** Bodies smaller than this are sent as they are (a few hundred bytes gain nothing from compression). */
export const MIN_COMPRESSED_BYTES = 1024;
/** zlib settings: gzip's default level; brotli at 5 (near its best ratio for JSON, at a fraction of 11's cost). */
export const GZIP_OPTIONS: ZlibOptions = { level: 6 };
export const BR_OPTIONS: BrotliOptions = {
  params: {
    [zlib.BROTLI_PARAM_QUALITY]: 5,
    [zlib.BROTLI_PARAM_MODE]: zlib.BROTLI_MODE_TEXT,
  },
};
const compressors: Record<Encoding, (b: Buffer) => Promise<Buffer>> = {
  gzip: (b) => promisify(gzip)(b, GZIP_OPTIONS),
  br: (b) => promisify(brotliCompress)(b, BR_OPTIONS),
};

const JSON_TYPE = 'application/json; charset=utf-8';

/**
 * A serialised JSON response body, kept whole with its headers: its (weak) ETag and type computed once, so a
 * cached body costs no hashing nor header building; its gzip and br forms computed once per body, on the first
 * request that accepts them (in zlib's thread pool, shared by the requests that arrive meanwhile), then kept
 * with it (and so with the cache entry holding it).
 */
export interface JsonBody {
  bytes: Buffer;
  etag: string;
  /** the headers of every answer with this body (and of its 304) */
  headers: Readonly<Record<string, string>>;
  /** compressed forms (absent for small bodies): each a promise while it is computed, then its headers and bytes */
  encoded?: Partial<Record<Encoding, Encoded | Promise<Encoded>>>;
}

interface Encoded {
  bytes: Buffer;
  headers: Readonly<Record<string, string>>;
}

export function jsonBody(json: string): JsonBody {
  const bytes = Buffer.from(json, 'utf8');
  const tag = etag(bytes, { weak: true });
  // one weak ETag for every encoding: they are the same JSON (as Express with compression, or nginx's gzip)
  if (bytes.length < MIN_COMPRESSED_BYTES)
    return { bytes, etag: tag, headers: { 'content-type': JSON_TYPE, etag: tag } };
  return {
    bytes,
    etag: tag,
    headers: { 'content-type': JSON_TYPE, etag: tag, vary: 'Accept-Encoding' },
    encoded: {},
  };
}

/** The compressed form of a body, computed at most once. */
export function encodedBody(body: JsonBody, encoding: Encoding): Encoded | Promise<Encoded> {
  const encoded = (body.encoded ??= {});
  const known = encoded[encoding];
  if (known) return known;
  const computing = compressors[encoding](body.bytes).then(
    (bytes) => (encoded[encoding] = { bytes, headers: { ...body.headers, 'content-encoding': encoding } }),
    (e: unknown) => {
      delete encoded[encoding]; // not kept: the next request tries again
      throw e;
    },
  );
  encoded[encoding] = computing;
  return computing;
}

/** Accept-Encoding → the encoding to send (br over gzip when equally acceptable); answers kept per header. */
const negotiator = new Negotiator<Encoding>({
  supportedValues: ['br', 'gzip'],
  cache: new LRUCache<string, string>({ max: 256 }),
});
export function preferredEncoding(acceptEncoding: string | undefined): Encoding | null {
  return acceptEncoding ? negotiator.negotiate(acceptEncoding) : null;
}

/**
 * Sends a prepared body with its headers, in the encoding the request prefers among identity, gzip and br (a
 * body of MIN_COMPRESSED_BYTES or more; `Vary: Accept-Encoding`). A GET whose If-None-Match names its ETag (and
 * does not ask `Cache-Control: no-cache`) is answered 304 with no body, as Express's `res.send` would
 * (`fresh`). Returns a promise only while a compressed form is first computed.
 */
export function sendJson(reply: FastifyReply, body: JsonBody, status = 200): void | Promise<void> {
  const req = reply.request;
  if (
    status === 200 &&
    (req.method === 'GET' || req.method === 'HEAD') &&
    req.headers['if-none-match'] !== undefined &&
    fresh(req.headers, { etag: body.etag })
  ) {
    void reply.header('etag', body.etag);
    if (body.encoded) void reply.header('vary', 'Accept-Encoding');
    void reply.code(304).send();
    return;
  }
  const encoding = body.encoded ? preferredEncoding(req.headers['accept-encoding']) : null;
  if (encoding === null) {
    void reply.code(status).headers(body.headers).send(body.bytes);
    return;
  }
  const encoded = encodedBody(body, encoding);
  if (!(encoded instanceof Promise)) {
    void reply.code(status).headers(encoded.headers).send(encoded.bytes);
    return;
  }
  return encoded.then(
    (e) => void reply.code(status).headers(e.headers).send(e.bytes),
    () => void reply.code(status).headers(body.headers).send(body.bytes),
  );
}

/** Sends a JSON body as it is read (a long list: chunked, no ETag, not compressed). */
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
