import type { NextFunction, Request, Response } from 'express';
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
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
      registers: [metrics.registry],
    });
  }

  /** Express middleware: times every request; the route is read when the response is finished. */
  middleware() {
    return (req: Request, res: Response, next: NextFunction) => {
      const end = this.duration.startTimer();
      res.once('finish', () => {
        end({
          [LABEL.method]: req.method,
          [LABEL.route]: routeOf(req),
          [LABEL.status]: String(res.statusCode),
        });
      });
      next();
    };
  }
}

/**
 * The matched route's pattern (`/api/admin/events/:featureName`), or `unmatched`. A catch-all pattern (the
 * one Nest mounts its global middleware on, left on requests no controller matched) is `unmatched` too.
 */
export function routeOf(req: Pick<Request, 'route' | 'baseUrl'>): string {
  const path = (req.route as { path?: unknown } | undefined)?.path;
  if (typeof path !== 'string' || path.includes('{*') || path.includes('*')) return UNMATCHED_ROUTE;
  return `${req.baseUrl ?? ''}${path}`;
}
