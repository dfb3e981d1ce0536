import { collectDefaultMetrics, Registry } from 'prom-client';
import { rebuildProgressRegistry } from './rebuild-progress';

/** One app's metrics (its own registry, so several apps can live in one test process). */
export class MetricsRegistry {
  readonly registry = new Registry();

  constructor(app: 'api' | 'projector' | 'connector') {
    this.registry.setDefaultLabels({ app });
    collectDefaultMetrics({ register: this.registry });
  }

  readonly contentType = this.registry.contentType;

  /** The Prometheus text exposition: this app's metrics, then the process's rebuild progress. */
  async render(): Promise<string> {
    return (await this.registry.metrics()) + (await rebuildProgressRegistry.metrics());
  }
}
