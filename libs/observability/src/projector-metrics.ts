import { Counter, Gauge, Histogram } from 'prom-client';
import {
  EVENT_OUTCOME,
  LABEL,
  METRIC,
  OTHER_UNKNOWN_TYPE,
  UNKNOWN_TYPE,
  UNKNOWN_TYPE_LABELS,
  type EventOutcome,
} from './metric-names';
import { MetricsRegistry } from './metrics-registry';
import type { PartitionProgress } from './partition-progress';

export interface BatchEvents {
  /** events that passed validation (type, known or not) */
  accepted: { event: { id: number; type: string }; knownType: boolean }[];
  /** those newly stored (not duplicates) */
  stored: { event: { id: number; type: string }; knownType: boolean }[];
  /** dead letters of the batch (validation and database refusals) */
  dead: { code: string; eventId: number | null }[];
}

/** Counts a batch's events by type label and outcome. Pure. */
export function countEventOutcomes(batch: BatchEvents): Map<string, Map<EventOutcome, number>> {
  const counts = new Map<string, Map<EventOutcome, number>>();
  const add = (type: string, outcome: EventOutcome, n = 1) => {
    const byOutcome = counts.get(type) ?? new Map<EventOutcome, number>();
    byOutcome.set(outcome, (byOutcome.get(outcome) ?? 0) + n);
    counts.set(type, byOutcome);
  };
  const typeOf = (s: BatchEvents['accepted'][number]) => (s.knownType ? s.event.type : UNKNOWN_TYPE);
  const rejected = new Set(
    batch.dead.flatMap((d) =>
      (d.code === 'db-rejected' || d.code === 'projection-error') && d.eventId !== null ? [d.eventId] : [],
    ),
  );
  const stored = new Map<string, number>();
  for (const s of batch.stored) {
    add(typeOf(s), EVENT_OUTCOME.stored);
    stored.set(typeOf(s), (stored.get(typeOf(s)) ?? 0) + 1);
  }
  // accepted, neither stored nor refused by the database: an id already stored (a duplicate)
  const notStored = new Map<string, number>();
  for (const s of batch.accepted) {
    if (rejected.has(s.event.id)) continue;
    notStored.set(typeOf(s), (notStored.get(typeOf(s)) ?? 0) + 1);
  }
  for (const [type, n] of notStored) {
    const dup = n - (stored.get(type) ?? 0);
    if (dup > 0) add(type, EVENT_OUTCOME.duplicate, dup);
  }
  if (batch.dead.length === 0) return counts;
  const acceptedType = new Map(batch.accepted.map((s) => [s.event.id, typeOf(s)]));
  for (const d of batch.dead) {
    add(
      d.eventId !== null ? (acceptedType.get(d.eventId) ?? UNKNOWN_TYPE) : UNKNOWN_TYPE,
      EVENT_OUTCOME.deadLettered,
    );
  }
  return counts;
}

/** The projector's instruments. */
export class ProjectorMetrics {
  readonly consumerLag: Gauge;
  readonly timeLag: Gauge;
  readonly lastEventTimestamp: Gauge;
  readonly events: Counter;
  readonly deadLetters: Counter;
  readonly batchSize: Histogram;
  readonly batchDuration: Histogram;
  readonly stageSeconds: Counter;
  readonly stageCpuSeconds: Counter;
  readonly stageDbCpuSeconds: Counter;
  readonly transactionRetries: Counter;
  readonly projectionSkips: Counter;
  readonly unknownEventTypes: Counter;
  /** The unknown types labelled by name so far (at most UNKNOWN_TYPE_LABELS). */
  private readonly unknownTypeLabels = new Set<string>();

  constructor(metrics: MetricsRegistry) {
    const registers = [metrics.registry];
    const partitionLabels = [LABEL.consumerGroup, LABEL.topic, LABEL.partition];
    this.consumerLag = new Gauge({
      name: METRIC.consumerLag,
      help: 'Messages behind: the partition high-water mark minus the next offset stored in Postgres (active projection version)',
      labelNames: partitionLabels,
      registers,
    });
    this.timeLag = new Gauge({
      name: METRIC.timeLag,
      help: 'Seconds between now and the createdAt of the last applied event, while the partition is behind (0 when caught up)',
      labelNames: partitionLabels,
      registers,
    });
    this.lastEventTimestamp = new Gauge({
      name: METRIC.lastEventTimestamp,
      help: 'createdAt of the last applied event of the partition (Unix seconds)',
      labelNames: partitionLabels,
      registers,
    });
    this.events = new Counter({
      name: METRIC.eventsApplied,
      help: 'Events handled by the projector, by event type (known types; others are "unknown") and outcome (stored, duplicate, dead_lettered)',
      labelNames: [LABEL.type, LABEL.outcome],
      registers,
    });
    this.unknownEventTypes = new Counter({
      name: METRIC.unknownEventTypes,
      help: `Events of a type flaglens does not know (a newer Unleash), stored in the event log, by type (after ${UNKNOWN_TYPE_LABELS} distinct types: "${OTHER_UNKNOWN_TYPE}")`,
      labelNames: [LABEL.type],
      registers,
    });
    this.deadLetters = new Counter({
      name: METRIC.deadLetters,
      help: 'Messages moved to the dead letters, by reason code',
      labelNames: [LABEL.reason],
      registers,
    });
    this.batchSize = new Histogram({
      name: METRIC.batchSize,
      help: 'Messages per applied batch (one Postgres transaction)',
      buckets: [1, 10, 50, 100, 250, 500, 1000, 2500, 5000, 10000],
      registers,
    });
    this.batchDuration = new Histogram({
      name: METRIC.batchDuration,
      help: 'Time to apply one batch: its Postgres transaction, retries included',
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers,
    });
    this.stageSeconds = new Counter({
      name: METRIC.stageSeconds,
      help: 'Seconds spent in each stage of the batch transactions (event-log, each projection, offsets, commit)',
      labelNames: [LABEL.stage],
      registers,
    });
    this.stageCpuSeconds = new Counter({
      name: METRIC.stageCpuSeconds,
      help: "The projector's CPU seconds per stage of the batches (classify, event-log, each projection, …), shared evenly between the stages running at the same time",
      labelNames: [LABEL.stage],
      registers,
    });
    this.stageDbCpuSeconds = new Counter({
      name: METRIC.stageDbCpuSeconds,
      help: 'CPU seconds of the Postgres backend serving the batch transaction, per stage (only when Postgres runs on the same machine)',
      labelNames: [LABEL.stage],
      registers,
    });
    this.transactionRetries = new Counter({
      name: METRIC.transactionRetries,
      help: 'Transient Postgres failures retried with backoff',
      registers,
    });
    this.projectionSkips = new Counter({
      name: METRIC.projectionSkips,
      help: 'Events a projection skipped (data it cannot use; the event itself is stored)',
      labelNames: [LABEL.projection],
      registers,
    });
  }

  recordBatch(batch: BatchEvents & { seconds: number; size: number }): void {
    this.batchSize.observe(batch.size);
    this.batchDuration.observe(batch.seconds);
    for (const [type, byOutcome] of countEventOutcomes(batch))
      for (const [outcome, n] of byOutcome)
        this.events.inc({ [LABEL.type]: type, [LABEL.outcome]: outcome }, n);
    for (const d of batch.dead) this.deadLetters.inc({ [LABEL.reason]: d.code });
    for (const s of batch.stored) {
      if (s.knownType) continue;
      const type = s.event.type;
      if (!this.unknownTypeLabels.has(type) && this.unknownTypeLabels.size < UNKNOWN_TYPE_LABELS)
        this.unknownTypeLabels.add(type);
      this.unknownEventTypes.inc({
        [LABEL.type]: this.unknownTypeLabels.has(type) ? type : OTHER_UNKNOWN_TYPE,
      });
    }
  }

  /** Sets the lag gauges of every partition `progress` knows. */
  publishProgress(group: string, topic: string, progress: PartitionProgress, nowMs: number): void {
    for (const partition of progress.partitions()) {
      const labels = {
        [LABEL.consumerGroup]: group,
        [LABEL.topic]: topic,
        [LABEL.partition]: String(partition),
      };
      const r = progress.report(partition, nowMs);
      if (r.lag !== null) this.consumerLag.set(labels, r.lag);
      const timeLag = progress.timeLagSeconds(partition, nowMs);
      if (timeLag !== null) this.timeLag.set(labels, timeLag);
      if (r.lastEventAt !== null) this.lastEventTimestamp.set(labels, Date.parse(r.lastEventAt) / 1000);
    }
  }
}
