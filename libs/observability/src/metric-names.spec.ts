import { collectDefaultMetrics, Registry } from 'prom-client';
import { SourceMetrics } from '../../source/src/source-metrics';
import { ApiCacheMetrics } from './api-cache-metrics';
import { HttpMetrics } from './http-metrics';
import { METRIC, METRIC_PREFIX } from './metric-names';
import { MetricsRegistry } from './metrics-registry';
import { PartitionProgress } from './partition-progress';
import { ProjectorMetrics } from './projector-metrics';
import { clearRebuildProgress, reportRebuildProgress } from './rebuild-progress';

/** The metric families of a Prometheus text exposition (`# TYPE <name> <type>` lines). */
const families = (text: string) => [...text.matchAll(/^# TYPE (\S+) /gm)].map((m) => m[1]);

describe('metric names', () => {
  it('every name flaglens defines carries the flaglens_ prefix', () => {
    for (const name of Object.values(METRIC))
      expect(name).toMatch(new RegExp(`^${METRIC_PREFIX}[a-z0-9_]+$`));
  });

  it('a scrape of every instrument holds flaglens_ metrics and prom-client defaults only, no kafka_exporter name', async () => {
    const registry = new MetricsRegistry('projector');
    const projector = new ProjectorMetrics(registry);
    new HttpMetrics(registry);
    new ApiCacheMetrics(registry);
    new SourceMetrics(registry.registry);
    const progress = new PartitionProgress();
    progress.observeHigh(0, 10, 0);
    projector.publishProgress('g', 't', progress, 0);
    reportRebuildProgress(2, { applied: 1, target: 2 });
    const text = await registry.render();
    clearRebuildProgress(2);

    const defaults = new Registry();
    collectDefaultMetrics({ register: defaults });
    const defaultNames = new Set(families(await defaults.metrics()));
    const ours = families(text).filter((n) => !defaultNames.has(n));
    expect(ours.length).toBeGreaterThanOrEqual(Object.keys(METRIC).length);
    expect(ours.filter((n) => !n.startsWith(METRIC_PREFIX))).toEqual([]);
    // kafka_exporter's names (kafka_consumergroup_lag, kafka_topic_partition_current_offset, ...) stay its own
    expect(families(text).filter((n) => n.startsWith('kafka_'))).toEqual([]);
    expect(text).toMatch(/^flaglens_projector_consumer_lag_messages\{[^}]*partition="0"[^}]*\} 10$/m);
  });
});
