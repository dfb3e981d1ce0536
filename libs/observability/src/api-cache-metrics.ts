import { Counter } from 'prom-client';
import { METRIC } from './metric-names';
import { MetricsRegistry } from './metrics-registry';

/** The api's caches: the answers they serve, and the change notices that empty them. */
export class ApiCacheMetrics {
  readonly cachedReplies: Counter<'route'>;
  readonly loadedReplies: Counter<'route'>;
  readonly changeNotices: Counter<'scope'>;

  constructor(metrics: MetricsRegistry) {
    this.cachedReplies = new Counter({
      name: METRIC.apiCachedReplies,
      help: 'GET requests answered from the caches before the Nest pipeline, by route pattern',
      labelNames: ['route'],
      registers: [metrics.registry],
    });
    this.loadedReplies = new Counter({
      name: METRIC.apiLoadedReplies,
      help: 'GET requests of a known caller whose answer was not cached, loaded before the Nest pipeline, by route pattern',
      labelNames: ['route'],
      registers: [metrics.registry],
    });
    this.changeNotices = new Counter({
      name: METRIC.apiChangeNotices,
      help: 'Change notices received, by scope: named, everything (every cache emptied), reset (feed lost or back)',
      labelNames: ['scope'],
      registers: [metrics.registry],
    });
  }
}
