import { Injectable, Logger } from '@nestjs/common';
import type { Query } from '@nestjs/cqrs';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Counter } from 'prom-client';
import { ApiCacheMetrics } from '@flaglens/observability';
import { AS_OF_PARAMETER } from '@flaglens/contract';
import type { Readable } from 'node:stream';
import { sendApiError } from '../common/all-errors.filter';
import { sendJson, sendJsonStream, type JsonBody } from '../common/json-body';
import type { ApiError } from '../common/unleash-errors';
import { Callers } from '../auth/callers';
import type { ReadAnswer, ReadRoute } from './read-route';

/**
 * A route's lookup of an answer already in its cache, for the query of a request by a cached caller:
 * synchronous, no database, the same keys as its query handler. undefined: not cached (or not sure): the
 * request takes the full path.
 */
export type CachedLookup<Q> = (query: Q) => JsonBody | undefined;

/**
 * A route's answer when the lookup missed: loaded (and cached) as its query handler would: a body, a stream,
 * or an error of the reference's (a 404). undefined, or a failure: the request takes the full path, which
 * answers (and logs) it.
 */
export type MissLoader<Q> = (
  query: Q,
) => Promise<{ body: JsonBody } | { stream: Readable } | { error: ApiError } | undefined>;

interface Registered {
  route: ReadRoute<Query<ReadAnswer>>;
  lookup: CachedLookup<Query<ReadAnswer>>;
  load?: MissLoader<Query<ReadAnswer>>;
  hits: { inc(): void };
  loaded: { inc(): void };
}

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
 * Both paths read a request through the route's one declaration (`ReadRoute`): the same parameters, parsed
 * once into the same query, the same headers. A parameter the declaration refuses falls through, and the full
 * path answers its 400.
 *
 * Hits and loaded answers are counted (`flaglens_api_cached_replies_total{route}`,
 * `flaglens_api_loaded_replies_total{route}`), timed like every request (HttpMetrics), and logged one in
 * HIT_LOG_SAMPLE; a slow request is logged whichever path it took.
 */
@Injectable()
export class CachedReads {
  private readonly log = new Logger('HTTP');
  private readonly routes = new Map<string, Registered>();
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
   * Registers a route by its declaration (the one its controller answers: path, parameters, headers), with the
   * lookup of its cached answers and how to load one when the lookup misses; both take the declared query.
   */
  add<Q extends Query<ReadAnswer>>(route: ReadRoute<Q>, lookup: CachedLookup<Q>, load?: MissLoader<Q>): void {
    this.routes.set(route.path, {
      route: route as ReadRoute<Query<ReadAnswer>>,
      lookup: lookup as CachedLookup<Query<ReadAnswer>>,
      load: load as MissLoader<Query<ReadAnswer>> | undefined,
      hits: this.hits.labels(route.path),
      loaded: this.loaded.labels(route.path),
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
    const registered = this.routes.get(req.routeOptions.url ?? '');
    if (!registered) return false;
    const userId = this.callers.cached(req);
    if (userId === undefined) return false;
    let query: Query<ReadAnswer>;
    try {
      query = registered.route.ask(req, userId);
    } catch {
      return false; // a malformed parameter: the full path answers the route's 400
    }
    const body = registered.lookup(query);
    if (!body) return registered.load ? this.load(registered, query, req, reply) : false;
    registered.hits.inc();
    this.sampled('cached', ++this.seen, req);
    if (registered.route.headers) void reply.headers(registered.route.headers);
    void this.send('cached', req, reply, body);
    return true;
  }

  /** A miss loaded here: true once it is answered; false (before anything is sent) for the full path. */
  private async load(
    { route, load, loaded }: Registered,
    query: Query<ReadAnswer>,
    req: FastifyRequest,
    reply: FastifyReply,
  ): Promise<boolean> {
    let answer: Awaited<ReturnType<MissLoader<unknown>>>;
    try {
      answer = await load!(query);
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
    if (route.headers) void reply.headers(route.headers);
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
