import { createHash } from 'node:crypto';

/**
 * SDK usage as contract events. Unleash keeps SDK traffic in tables, never in `events`; the connector turns
 * their rows into `client-register` / `client-metrics` events whose ids are a hash of what the row is (its
 * identity, never its counts or the time it was read), in a range Unleash's sequence never reaches:
 * [2^52, 2^53). Reading the same row or bucket twice gives the same id, and the projector stores an id once.
 *
 * The events carry no `project`, `featureName` or `environment` at event level (the environment is in
 * `data`): SDK traffic is not project activity nor an environment update in the reference (it never reaches
 * its `events` table), and such events are keyed `instance`.
 */
export const SDK_ID_BASE = 2 ** 52;

/** A deterministic id in [2^52, 2^53) for an identity (a list of strings). */
export function sdkEventId(...identity: string[]): number {
  const h = createHash('sha256').update(JSON.stringify(identity)).digest();
  // 52 bits: 6 bytes (48) + the high nibble of the seventh
  const hi = h.readUIntBE(0, 6) * 16 + (h[6] >> 4);
  return SDK_ID_BASE + hi;
}

export interface SdkEvent {
  id: number;
  type: 'client-register' | 'client-metrics';
  createdBy: string;
  createdAt: string;
  createdByUserId: null;
  data: Record<string, unknown>;
  preData: null;
  tags: [];
  featureName: null;
  project: null;
  environment: null;
}

const base = (
  id: number,
  type: SdkEvent['type'],
  createdBy: string,
  createdAt: string,
  data: Record<string, unknown>,
): SdkEvent => ({
  id,
  type,
  createdBy,
  createdAt,
  createdByUserId: null,
  data,
  preData: null,
  tags: [],
  featureName: null,
  project: null,
  environment: null,
});

/** The app name of the reports that carry `last_seen_at_metrics` (that table names no application). */
export const LAST_SEEN_APP = 'unleash-last-seen';

/**
 * A row of `last_seen_at_metrics` (an SDK reported the flag in the environment): a zero-count report naming
 * the flag, produced once per (flag, environment). It onboards the flag's project at once (semantics §3.8);
 * zero counts add nothing to the metrics trends (the reference drops zero-count toggles too).
 */
export function lastSeenEvent(row: { feature: string; environment: string; lastSeenAt: string }): SdkEvent {
  return base(
    sdkEventId('last-seen', row.feature, row.environment),
    'client-metrics',
    LAST_SEEN_APP,
    row.lastSeenAt,
    {
      appName: LAST_SEEN_APP,
      environment: row.environment,
      bucket: {
        start: row.lastSeenAt,
        stop: row.lastSeenAt,
        toggles: { [row.feature]: { yes: 0, no: 0 } },
      },
    },
  );
}

/**
 * A row of `client_applications_usage` (an SDK registered with a token covering the project): a
 * `client-register` naming the project in `data.project`, once per (app, project, environment). The
 * sdk-usage projection onboards that project (semantics §3.8); `*` (a token for all projects) names none.
 */
export function usageEvent(row: {
  app: string;
  project: string;
  environment: string;
  seenAt: string;
}): SdkEvent {
  return base(
    sdkEventId('usage', row.app, row.project, row.environment),
    'client-register',
    row.app,
    row.seenAt,
    { appName: row.app, environment: row.environment, project: row.project },
  );
}

/** A row of `client_instances` (one SDK instance registered): a `client-register`, once per instance. */
export function instanceEvent(row: {
  app: string;
  instanceId: string;
  environment: string;
  sdkVersion: string | null;
  strategies: unknown;
  createdAt: string;
}): SdkEvent {
  const data: Record<string, unknown> = {
    appName: row.app,
    instanceId: row.instanceId,
    environment: row.environment,
  };
  if (row.sdkVersion) data.sdkVersion = row.sdkVersion;
  if (Array.isArray(row.strategies) && row.strategies.every((s) => typeof s === 'string'))
    data.strategies = row.strategies;
  data.started = row.createdAt;
  return base(
    sdkEventId('instance', row.app, row.environment, row.instanceId),
    'client-register',
    row.app,
    row.createdAt,
    data,
  );
}

export interface BucketRow {
  feature: string;
  yes: number;
  no: number;
  variants?: Record<string, number>;
}

/**
 * One closed bucket of `client_metrics_env` (an hour) or `client_metrics_env_daily` (a day) for one
 * application and environment: one `client-metrics` report with every flag's counts, produced once the
 * bucket is closed. `createdAt` is the bucket's start, so per-day trends land on the bucket's day.
 */
export function bucketEvent(b: {
  kind: 'hour' | 'day';
  app: string;
  environment: string;
  start: string;
  stop: string;
  rows: BucketRow[];
}): SdkEvent {
  const toggles: Record<string, { yes: number; no: number; variants?: Record<string, number> }> = {};
  for (const r of [...b.rows].sort((x, y) => (x.feature < y.feature ? -1 : x.feature > y.feature ? 1 : 0))) {
    toggles[r.feature] =
      r.variants && Object.keys(r.variants).length > 0
        ? { yes: r.yes, no: r.no, variants: r.variants }
        : { yes: r.yes, no: r.no };
  }
  return base(sdkEventId(b.kind, b.app, b.environment, b.start), 'client-metrics', b.app, b.start, {
    appName: b.app,
    environment: b.environment,
    bucket: { start: b.start, stop: b.stop, toggles },
  });
}
