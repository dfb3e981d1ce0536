import { Counter, Histogram } from 'prom-client';
import { METRIC } from './metric-names';
import { MetricsRegistry } from './metrics-registry';

/** The api's caches: the answers they serve, the change notices that empty them, Unleash's verdicts. */
export class ApiCacheMetrics {
  readonly cachedReplies: Counter<'route'>;
  readonly loadedReplies: Counter<'route'>;
  readonly changeNotices: Counter<'scope'>;
  readonly unleashVerdicts: Counter<'outcome'>;
  readonly unleashAskSeconds: Histogram;

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
    this.unleashVerdicts = new Counter({
      name: METRIC.apiUnleashVerdicts,
      help: 'Questions to the Unleash the api follows about a credential it issued, by outcome: user, admin-token, refused, unanswered',
      labelNames: ['outcome'],
      registers: [metrics.registry],
    });
    this.unleashAskSeconds = new Histogram({
      name: METRIC.apiUnleashAskSeconds,
      help: 'How long the Unleash the api follows took to answer about a credential',
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 3],
      registers: [metrics.registry],
    });
  }
}
