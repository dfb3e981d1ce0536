import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Histogram } from 'prom-client';
import { LABEL, METRIC, UNMATCHED_ROUTE } from './metric-names';
import { MetricsRegistry } from './metrics-registry';

/** The api's request timing, labelled by route pattern (never the raw path) and status code. */
export class HttpMetrics {
  readonly duration: Histogram;

  constructor(metrics: MetricsRegistry) {
    this.duration = new Histogram({
      name: METRIC.httpDuration,
      help: 'HTTP request duration by method, route pattern and status code',
      labelNames: [LABEL.method, LABEL.route, LABEL.status],
      buckets: [0.001, 0.0025, 0.005, 0.0075, 0.01, 0.015, 0.02, 0.03, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
      registers: [metrics.registry],
    });
  }

  /** Times every request (Fastify's `onResponse` hook, with Fastify's own clock). */
  register(fastify: FastifyInstance): void {
    fastify.addHook('onResponse', (req: FastifyRequest, reply: FastifyReply, done: () => void) => {
      this.duration.observe(
        {
          [LABEL.method]: req.method,
          [LABEL.route]: routeOf(req),
          [LABEL.status]: String(reply.statusCode),
        },
        reply.elapsedTime / 1000,
      );
      done();
    });
  }
}

/**
 * The matched route's pattern (`/api/admin/events/:featureName`), or `unmatched` when no route matched
 * (Fastify's not-found handler has no pattern, or a catch-all one).
 */
export function routeOf(req: { routeOptions?: { url?: string } }): string {
  const url = req.routeOptions?.url;
  if (typeof url !== 'string' || url === '' || url.includes('*')) return UNMATCHED_ROUTE;
  return url;
}
