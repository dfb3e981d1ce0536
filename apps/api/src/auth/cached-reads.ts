import { Injectable, Logger } from '@nestjs/common';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Counter } from 'prom-client';
import { ApiCacheMetrics } from '@flaglens/observability';
import { AS_OF_PARAMETER } from '@flaglens/contract';
import type { Readable } from 'node:stream';
import { sendApiError } from '../common/all-errors.filter';
import { sendJson, sendJsonStream, type JsonBody } from '../common/json-body';
import type { ApiError } from '../common/unleash-errors';
import { Callers } from './callers';

/** A cached answer ready to send: its body (with ETag) and any headers of the route. */
export interface CachedReply {
  body: JsonBody;
  headers?: Readonly<Record<string, string>>;
}

/**
 * A route's lookup of an answer already in its cache, for an authenticated caller: synchronous, no database,
 * the same keys as its query handler. undefined: not cached (or not sure): the request takes the full path.
 */
export type CachedLookup = (req: FastifyRequest, userId: number) => CachedReply | undefined;

/**
 * A route's answer for an authenticated caller when the lookup missed: loaded (and cached) as its query handler
 * would: a body, a stream, or an error of the reference's (a 404). undefined, or a failure: the request takes
 * the full path, which answers (and logs) it.
 */
export type MissLoader = (
  req: FastifyRequest,
  userId: number,
) => Promise<{ body: JsonBody } | { stream: Readable } | { error: ApiError } | undefined>;

/** A request slower than this (ms, Fastify's clock, whichever path it took) is logged at warn. */
export const SLOW_REQUEST_MS = 1000;
/** One hit in this many is logged at debug (hits are otherwise not logged one by one: metrics time them). */
export const HIT_LOG_SAMPLE = 1000;

/**
 * The hot path of the reads: a GET whose caller and answer are both cached is answered from a Fastify
 * `onRequest` hook, before Nest's router, guards, pipes, query bus and per-request logging. A hit costs the
 * token's hash, a few map lookups and the write of the kept body (ETag, 304 on If-None-Match, encodings as
 * `sendJson`). For a cached caller whose answer is not cached, a route may load it here too, as its query
 * handler does (the event lists and the overview: their misses are most of the reads under steady ingest);
 * that saves about a quarter of a miss's CPU in the api. Anything else (an unknown or uncached caller, a route
 * without a loader, a loader that declines or fails) falls through to the full path, which authorizes, answers,
 * fills the caches and logs. Caches keyed by visibility stay so: each lookup and loader uses its query
 * handler's keys.
 *
 * Hits and loaded answers are counted (`flaglens_api_cached_replies_total{route}`,
 * `flaglens_api_loaded_replies_total{route}`), timed like every request (HttpMetrics), and logged one in
 * HIT_LOG_SAMPLE; a slow request is logged whichever path it took.
 */
@Injectable()
export class CachedReads {
  private readonly log = new Logger('HTTP');
  private readonly routes = new Map<
    string,
    { lookup: CachedLookup; load?: MissLoader; hits: { inc(): void }; loaded: { inc(): void } }
  >();
  private readonly hits: Counter<'route'>;
  private readonly loaded: Counter<'route'>;
  private loads = 0;
  private seen = 0;

  constructor(
    private readonly callers: Callers,
    metrics: ApiCacheMetrics,
  ) {
    this.hits = metrics.cachedReplies;
    this.loaded = metrics.loadedReplies;
  }

  /**
   * Registers the lookup of a route (its pattern as Fastify matched it, e.g. `/api/admin/events/:featureName`),
   * and how to load its answer when the lookup misses.
   */
  add(route: string, lookup: CachedLookup, load?: MissLoader): void {
    this.routes.set(route, {
      lookup,
      load,
      hits: this.hits.labels(route),
      loaded: this.loaded.labels(route),
    });
  }

  /**
   * Answers a hit and returns true (the reply is sent, or being sent while a compressed form is first computed);
   * loads a miss of a route with a loader and returns a promise of whether it answered; else returns false: the
   * request goes on. Synchronous for hits and for the full path, so that main.ts's `onRequest` hook, added
   * before Nest's middleware (per-request logging), costs them no promise.
   */
  answer(req: FastifyRequest, reply: FastifyReply): boolean | Promise<boolean> {
    if (req.method !== 'GET') return false;
    // a read as of an instant (`at`, any value: a malformed one too) is never answered from a cache of answers
    // of now, nor loaded into one: the full path parses it and reads it apart (docs/design.md, "Reads as of an
    // instant")
    if ((req.query as Record<string, unknown> | undefined)?.[AS_OF_PARAMETER] !== undefined) return false;
    const route = this.routes.get(req.routeOptions.url ?? '');
    if (!route) return false;
    const userId = this.callers.cached(req);
    if (userId === undefined) return false;
    const hit = route.lookup(req, userId);
    if (!hit) return route.load ? this.load(route.load, route.loaded, req, reply, userId) : false;
    route.hits.inc();
    this.sampled('cached', ++this.seen, req);
    if (hit.headers) void reply.headers(hit.headers);
    void this.send('cached', req, reply, hit.body);
    return true;
  }

  /** A miss loaded here: true once it is answered; false (before anything is sent) for the full path. */
  private async load(
    load: MissLoader,
    loaded: { inc(): void },
    req: FastifyRequest,
    reply: FastifyReply,
    userId: number,
  ): Promise<boolean> {
    let answer: Awaited<ReturnType<MissLoader>>;
    try {
      answer = await load(req, userId);
    } catch {
      return false; // the full path answers the failure (its envelope, its log line)
    }
    if (!answer) return false;
    loaded.inc();
    this.sampled('loaded', ++this.loads, req);
    if ('error' in answer) {
      sendApiError(reply, answer.error);
      return true;
    }
    if ('stream' in answer) {
      sendJsonStream(reply, answer.stream);
      return true;
    }
    await this.send('loaded', req, reply, answer.body);
    return true;
  }

  /** One in HIT_LOG_SAMPLE answers of a kind (the `n`-th so far) is logged, at debug. */
  private sampled(kind: 'cached' | 'loaded', n: number, req: FastifyRequest): void {
    if (n % HIT_LOG_SAMPLE === 0)
      this.log.debug(`${HIT_LOG_SAMPLE} ${kind} replies; this one: GET ${req.routeOptions.url}`);
  }

  /**
   * Sends a kept body (`sendJson`); a promise only while a compressed form is first computed, which never
   * rejects: a failure is logged and answered 500 if nothing was sent yet.
   */
  private send(
    kind: 'cached' | 'loaded',
    req: FastifyRequest,
    reply: FastifyReply,
    body: JsonBody,
  ): void | Promise<void> {
    const sending = sendJson(reply, body);
    if (sending)
      return sending.catch((e: unknown) => {
        this.log.error(`${kind} reply of GET ${req.routeOptions.url} failed: ${String(e)}`);
        if (!reply.sent) void reply.code(500).send();
      });
  }

  /** Hits are not logged one by one: a slow request is (whichever path it took). */
  register(fastify: FastifyInstance): void {
    fastify.addHook('onResponse', (req: FastifyRequest, reply: FastifyReply, done: () => void) => {
      if (reply.elapsedTime >= SLOW_REQUEST_MS)
        this.log.warn(
          `slow request: ${req.method} ${req.routeOptions.url ?? 'unmatched'} ${reply.statusCode} in ${Math.round(reply.elapsedTime)} ms`,
        );
      done();
    });
  }
}
