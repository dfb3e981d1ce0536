import { Counter, Gauge, type Registry } from 'prom-client';
import { LABEL, METRIC } from '@flaglens/observability';

/** The connector's instruments (names in libs/observability/src/metric-names.ts). */
export class SourceMetrics {
  readonly rowsRead: Counter<string>;
  readonly produced: Counter<string>;
  readonly position: Gauge<string>;
  readonly openGaps: Gauge<string>;
  readonly gapsClosed: Counter<string>;
  readonly lagRows: Gauge<string>;
  readonly lagSeconds: Gauge<string>;
  readonly lastPoll: Gauge<string>;
  readonly errors: Counter<string>;

  constructor(registry: Registry) {
    const registers = [registry];
    const s = [LABEL.source];
    this.rowsRead = new Counter({
      name: METRIC.sourceRowsRead,
      help: 'Rows read from the source',
      labelNames: s,
      registers,
    });
    this.produced = new Counter({
      name: METRIC.sourceProduced,
      help: 'Events produced to the topic and acknowledged, by kind (event: from the events table; sdk: SDK usage)',
      labelNames: [LABEL.source, LABEL.kind],
      registers,
    });
    this.position = new Gauge({
      name: METRIC.sourcePosition,
      help: 'High-water mark: the highest source event id read',
      labelNames: s,
      registers,
    });
    this.openGaps = new Gauge({
      name: METRIC.sourceOpenGaps,
      help: 'Ids below the high-water mark not visible yet (open gaps)',
      labelNames: s,
      registers,
    });
    this.gapsClosed = new Counter({
      name: METRIC.sourceGapsClosed,
      help: 'Gap ranges closed, by reason: filled (the row appeared), abandoned (proven), timeout',
      labelNames: [LABEL.source, LABEL.reason],
      registers,
    });
    this.lagRows = new Gauge({
      name: METRIC.sourceLagRows,
      help: "Source's newest event id minus the high-water mark",
      labelNames: s,
      registers,
    });
    this.lagSeconds = new Gauge({
      name: METRIC.sourceLagSeconds,
      help: "createdAt of the source's newest event minus that of the last one read (0 when caught up)",
      labelNames: s,
      registers,
    });
    this.lastPoll = new Gauge({
      name: METRIC.sourceLastPoll,
      help: 'Unix time of the last successful read of the source',
      labelNames: s,
      registers,
    });
    this.errors = new Counter({
      name: METRIC.sourceErrors,
      help: 'Failed reads of the source or writes of the position (retried with backoff)',
      labelNames: s,
      registers,
    });
  }
}
