/** The prefix of every metric flaglens defines (metric-names.spec.ts holds every name to it). */
export const METRIC_PREFIX = 'flaglens_';

/**
 * Every metric flaglens exports, in one place (Prometheus conventions: snake_case, a unit suffix,
 * `_total` on counters, low-cardinality labels), each with the `flaglens_` prefix. Dashboards
 * (ops/grafana/flaglens.json) and docs/operations-metrics.md name these; change them together.
 * prom-client's default process metrics (`process_*`, `nodejs_*`) keep their conventional names.
 */
export const METRIC = {
  /**
   * Messages behind: high-water mark − next offset stored in Postgres (the position flaglens trusts). Not
   * kafka_exporter's `kafka_consumergroup_lag` (which reads the offsets committed to Kafka), so the two never
   * add up when both are scraped: docs/operations-metrics.md.
   */
  consumerLag: 'flaglens_projector_consumer_lag_messages',
  /** now − createdAt of the last applied event of a partition that is behind (0 when caught up). */
  timeLag: 'flaglens_projector_time_lag_seconds',
  /** createdAt of the last applied event of a partition, as a Unix time. */
  lastEventTimestamp: 'flaglens_projector_last_event_timestamp_seconds',
  /** Events handled by the projector, by type (a known type, else `unknown`) and outcome. */
  eventsApplied: 'flaglens_projector_events_total',
  /**
   * Valid events of a type flaglens does not know (an Unleash newer than it), newly stored in the event log
   * (ACCEPT_UNKNOWN_EVENT_TYPES, the default), by type: the first UNKNOWN_TYPE_LABELS types by their name,
   * any later one as `other`.
   */
  unknownEventTypes: 'flaglens_projector_unknown_event_types_total',
  /** Messages moved to the dead letters, by reason code. */
  deadLetters: 'flaglens_dead_letters_total',
  batchSize: 'flaglens_projector_batch_size_events',
  batchDuration: 'flaglens_projector_batch_duration_seconds',
  /** Seconds spent per stage of the batches (event log, each projection, offsets, commit): where ingest goes. */
  stageSeconds: 'flaglens_projector_stage_seconds_total',
  /** The projector's CPU per stage (shared evenly between the stages running at once). */
  stageCpuSeconds: 'flaglens_projector_stage_cpu_seconds_total',
  /** The Postgres backend's CPU per stage (a server on the projector's machine only). */
  stageDbCpuSeconds: 'flaglens_projector_stage_db_cpu_seconds_total',
  /** Transient Postgres failures retried (a batch, or a position load). */
  transactionRetries: 'flaglens_projector_transaction_retries_total',
  /** Projections that skipped an event (bad data for that projection, the event is still stored). */
  projectionSkips: 'flaglens_projection_skipped_events_total',
  rebuildApplied: 'flaglens_rebuild_applied_events',
  rebuildTarget: 'flaglens_rebuild_target_events',
  /** The api's GET requests answered from its caches before the Nest pipeline, by route pattern. */
  apiCachedReplies: 'flaglens_api_cached_replies_total',
  /**
   * The api's GET requests of a known caller whose answer was not cached, loaded before the Nest pipeline, by
   * route pattern (404s of unknown or hidden projects included).
   */
  apiLoadedReplies: 'flaglens_api_loaded_replies_total',
  /**
   * Change notices the api received, by scope: `named` (dropping what they name), `everything` (a batch too
   * large to name, or a rebuild's switch: every cache emptied), `reset` (the feed was lost or is back).
   */
  apiChangeNotices: 'flaglens_api_change_notices_total',
  /**
   * The api's questions to the Unleash it follows about a credential it issued, by outcome: `user`,
   * `admin-token`, `refused` (401/403), `unanswered` (down, timed out, or not Unleash's answer: 503 once no
   * verdict is kept).
   */
  apiUnleashVerdicts: 'flaglens_api_unleash_verdicts_total',
  /** How long the Unleash the api follows took to answer about a credential (answered or not). */
  apiUnleashAskSeconds: 'flaglens_api_unleash_ask_seconds',
  /** The api's requests, by method, route pattern and status code. */
  httpDuration: 'flaglens_http_request_duration_seconds',
  /** Source connector: rows read from the source (Unleash's `events`), by source. */
  sourceRowsRead: 'flaglens_source_rows_read_total',
  /** Source connector: events produced to the topic and acknowledged, by source and kind (`event`, `sdk`). */
  sourceProduced: 'flaglens_source_events_produced_total',
  /** Source connector: its high-water mark (the highest source id read). */
  sourcePosition: 'flaglens_source_position',
  /** Source connector: ids below the high-water mark not visible yet (open gaps). */
  sourceOpenGaps: 'flaglens_source_open_gap_ids',
  /** Source connector: gaps closed, by reason (`filled`, `abandoned`, `timeout`). */
  sourceGapsClosed: 'flaglens_source_gaps_closed_total',
  /** Source connector: source's newest id − high-water mark. */
  sourceLagRows: 'flaglens_source_lag_rows',
  /** Source connector: createdAt of the source's newest event − createdAt of the last one read (0 when caught up). */
  sourceLagSeconds: 'flaglens_source_lag_seconds',
  /** Source connector: Unix time of its last successful read of the source. */
  sourceLastPoll: 'flaglens_source_last_poll_timestamp_seconds',
  /** Source connector: failed reads of the source (retried with backoff). */
  sourceErrors: 'flaglens_source_errors_total',
} as const;

export const LABEL = {
  consumerGroup: 'consumergroup',
  topic: 'topic',
  partition: 'partition',
  type: 'type',
  outcome: 'outcome',
  reason: 'reason',
  projection: 'projection',
  stage: 'stage',
  version: 'version',
  method: 'method',
  route: 'route',
  source: 'source',
  kind: 'kind',
  status: 'status_code',
} as const;

/** Values of the `outcome` label of METRIC.eventsApplied. */
export const EVENT_OUTCOME = {
  stored: 'stored',
  duplicate: 'duplicate',
  deadLettered: 'dead_lettered',
} as const;
export type EventOutcome = (typeof EVENT_OUTCOME)[keyof typeof EVENT_OUTCOME];

/** Type label of events whose type is outside the contract, and of messages that did not parse. */
export const UNKNOWN_TYPE = 'unknown';

/**
 * How many distinct types METRIC.unknownEventTypes labels by name per process (a producer could send any
 * number of types: the labels stay bounded); later ones are counted as OTHER_UNKNOWN_TYPE.
 */
export const UNKNOWN_TYPE_LABELS = 100;
export const OTHER_UNKNOWN_TYPE = 'other';

/** Route label of requests no route matched (keeps raw paths out of the labels). */
export const UNMATCHED_ROUTE = 'unmatched';
