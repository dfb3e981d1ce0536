import type { UnleashDb } from './unleash-db';
import type { SdkPosition } from './position-store';
import {
  bucketEvent,
  instanceEvent,
  lastSeenEvent,
  usageEvent,
  type BucketRow,
  type SdkEvent,
} from './sdk-events';

export interface SdkRead {
  events: SdkEvent[];
  position: SdkPosition;
  /** Marks the read's rows as produced (call once Kafka acknowledged them). */
  commit(): void;
}

const iso = (d: Date | string): string => (d instanceof Date ? d : new Date(d)).toISOString();

/**
 * Reads Unleash's SDK tables and turns what is new into events (sdk-events.ts):
 * - `last_seen_at_metrics`, `client_applications_usage`, `client_instances`: each row once per identity, as
 *   soon as it is seen (onboarding does not wait for an hour to close); after the first full read only the rows
 *   touched since (usage rows carry no time: that small table is read whole); a restart sends them again
 *   (same ids);
 * - `client_metrics_env`: each hourly bucket once, when closed (its hour has ended and `closeGraceMs` more
 *   have passed on Unleash's clock: SDKs send a bucket up to their interval late, and Unleash writes what it
 *   received every 5 s); `client_metrics_env_daily` for the days before the hourly table's first complete
 *   day, once.
 */
export class SdkReader {
  private readonly lastSeen = new Set<string>();
  private readonly usage = new Set<string>();
  private readonly instances = new Set<string>();
  /** Unleash's clock at the start of the last read whose rows were all produced (for incremental reads). */
  private since: Date | null = null;

  constructor(
    private readonly db: UnleashDb,
    private readonly tables: ReadonlySet<string>,
    private readonly closeGraceMs: number,
  ) {}

  async read(position: SdkPosition | undefined): Promise<SdkRead> {
    const events: SdkEvent[] = [];
    const marks: (() => void)[] = [];
    const t = this.tables;
    const pos: SdkPosition = position ?? { hourlyFrom: null, hoursDone: null, dailyDone: false };
    // after a full read, only rows touched since the last one (5 minutes of overlap: a row's time is its
    // writer's transaction start, which may be visible a little later)
    const startedAt = await this.db.now();
    const since = this.since ? new Date(this.since.getTime() - 5 * 60_000) : null;

    if (t.has('last_seen_at_metrics')) {
      const rows = await this.db.query<{ feature_name: string; environment: string; last_seen_at: Date }>(
        `SELECT feature_name, environment, last_seen_at FROM last_seen_at_metrics
          WHERE $1::timestamptz IS NULL OR last_seen_at >= $1::timestamptz`,
        [since],
      );
      for (const r of rows) {
        const k = JSON.stringify([r.feature_name, r.environment]);
        if (this.lastSeen.has(k)) continue;
        events.push(
          lastSeenEvent({
            feature: r.feature_name,
            environment: r.environment,
            lastSeenAt: iso(r.last_seen_at),
          }),
        );
        marks.push(() => this.lastSeen.add(k));
      }
    }

    const apps = t.has('client_applications');
    if (t.has('client_applications_usage')) {
      const rows = await this.db.query<{
        app_name: string;
        project: string;
        environment: string;
        seen: Date;
      }>(
        apps
          ? `SELECT u.app_name, u.project, u.environment,
                    COALESCE(a.seen_at, a.updated_at, a.created_at, now()) AS seen
               FROM client_applications_usage u LEFT JOIN client_applications a ON a.app_name = u.app_name`
          : `SELECT app_name, project, environment, now() AS seen FROM client_applications_usage`,
      );
      for (const r of rows) {
        const k = JSON.stringify([r.app_name, r.project, r.environment]);
        if (this.usage.has(k)) continue;
        events.push(
          usageEvent({
            app: r.app_name,
            project: r.project,
            environment: r.environment,
            seenAt: iso(r.seen),
          }),
        );
        marks.push(() => this.usage.add(k));
      }
    }

    if (t.has('client_instances')) {
      const rows = await this.db.query<{
        app_name: string;
        instance_id: string;
        environment: string;
        sdk_version: string | null;
        created_at: Date | null;
        strategies: unknown;
      }>(
        apps
          ? `SELECT i.app_name, i.instance_id, i.environment, i.sdk_version,
                    COALESCE(i.created_at, i.last_seen, now()) AS created_at, a.strategies
               FROM client_instances i LEFT JOIN client_applications a ON a.app_name = i.app_name
              WHERE $1::timestamptz IS NULL OR COALESCE(i.created_at, i.last_seen) >= $1::timestamptz`
          : `SELECT app_name, instance_id, environment, sdk_version,
                    COALESCE(created_at, last_seen, now()) AS created_at, NULL::json AS strategies
               FROM client_instances
              WHERE $1::timestamptz IS NULL OR COALESCE(created_at, last_seen) >= $1::timestamptz`,
        [since],
      );
      for (const r of rows) {
        const k = JSON.stringify([r.app_name, r.environment, r.instance_id]);
        if (this.instances.has(k)) continue;
        events.push(
          instanceEvent({
            app: r.app_name,
            instanceId: r.instance_id,
            environment: r.environment,
            sdkVersion: r.sdk_version,
            strategies: r.strategies,
            createdAt: iso(r.created_at ?? new Date()),
          }),
        );
        marks.push(() => this.instances.add(k));
      }
    }

    const next: SdkPosition = { ...pos };
    if (t.has('client_metrics_env')) {
      if (next.hourlyFrom === null) next.hourlyFrom = await this.hourlyFrom();
      if (!next.dailyDone && t.has('client_metrics_env_daily')) {
        events.push(...(await this.dailyBuckets(next.hourlyFrom)));
      }
      next.dailyDone = true;
      const { events: hours, last } = await this.closedHours(next.hourlyFrom, next.hoursDone);
      events.push(...hours);
      if (last) next.hoursDone = last;
    }

    return {
      events,
      position: next,
      commit: () => {
        marks.forEach((m) => m());
        this.since = startedAt;
      },
    };
  }

  /**
   * Where hourly buckets start, decided once: the hourly table keeps 48 hours, older ones are in the daily
   * table (when Unleash rolled them up). The first hourly day is taken whole from the daily table when it
   * is there (its early hours may have been pruned from the hourly one).
   */
  private async hourlyFrom(): Promise<string> {
    const [m] = await this.db.query<{ min: Date | null; day: string | null }>(
      `SELECT min("timestamp") AS min, (min("timestamp") AT TIME ZONE 'UTC')::date::text AS day FROM client_metrics_env`,
    );
    const daily = this.tables.has('client_metrics_env_daily');
    if (m.min) {
      if (daily) {
        const [d] = await this.db.query<{ has: boolean }>(
          `SELECT EXISTS (SELECT 1 FROM client_metrics_env_daily WHERE date = $1::date) AS has`,
          [m.day],
        );
        if (d.has) return new Date(Date.parse(`${m.day}T00:00:00Z`) + 86_400_000).toISOString();
      }
      return iso(m.min);
    }
    if (daily) {
      const [d] = await this.db.query<{ next: string | null }>(
        `SELECT (max(date) + 1)::text AS next FROM client_metrics_env_daily`,
      );
      if (d.next) return new Date(`${d.next}T00:00:00Z`).toISOString();
    }
    return new Date(0).toISOString();
  }

  private async dailyBuckets(hourlyFrom: string): Promise<SdkEvent[]> {
    const variants = this.tables.has('client_metrics_env_variants_daily')
      ? `(SELECT json_object_agg(v.variant, v.count) FROM client_metrics_env_variants_daily v
           WHERE v.feature_name = m.feature_name AND v.app_name = m.app_name
             AND v.environment = m.environment AND v.date = m.date)`
      : 'NULL::json';
    const rows = await this.db.query<Raw & { day: string }>(
      `SELECT m.feature_name, m.app_name, m.environment, m.date::text AS day, m.yes, m.no, ${variants} AS variants
         FROM client_metrics_env_daily m
        WHERE m.date < ($1::timestamptz AT TIME ZONE 'UTC')::date
        ORDER BY m.date, m.app_name, m.environment`,
      [hourlyFrom],
    );
    return group(rows, (r) => r.day).map(({ app, environment, at, rows: rs }) => {
      const start = new Date(`${at}T00:00:00Z`);
      return bucketEvent({
        kind: 'day',
        app,
        environment,
        start: start.toISOString(),
        stop: new Date(start.getTime() + 86_400_000).toISOString(),
        rows: rs,
      });
    });
  }

  private async closedHours(
    hourlyFrom: string,
    hoursDone: string | null,
  ): Promise<{ events: SdkEvent[]; last: string | null }> {
    const variants = this.tables.has('client_metrics_env_variants')
      ? `(SELECT json_object_agg(v.variant, v.count) FROM client_metrics_env_variants v
           WHERE v.feature_name = m.feature_name AND v.app_name = m.app_name
             AND v.environment = m.environment AND v."timestamp" = m."timestamp")`
      : 'NULL::json';
    const rows = await this.db.query<Raw & { ts: Date }>(
      `SELECT m.feature_name, m.app_name, m.environment, m."timestamp" AS ts, m.yes, m.no, ${variants} AS variants
         FROM client_metrics_env m
        WHERE m."timestamp" >= $1::timestamptz
          AND ($2::timestamptz IS NULL OR m."timestamp" > $2::timestamptz)
          AND m."timestamp" + interval '1 hour' + $3 * interval '1 millisecond' <= now()
        ORDER BY m."timestamp", m.app_name, m.environment`,
      [hourlyFrom, hoursDone, this.closeGraceMs],
    );
    let last: string | null = null;
    const events = group(rows, (r) => iso(r.ts)).map(({ app, environment, at, rows: rs }) => {
      if (last === null || at > last) last = at;
      return bucketEvent({
        kind: 'hour',
        app,
        environment,
        start: at,
        stop: new Date(Date.parse(at) + 3_600_000).toISOString(),
        rows: rs,
      });
    });
    return { events, last };
  }
}

interface Raw {
  feature_name: string;
  app_name: string;
  environment: string;
  yes: string | number | null;
  no: string | number | null;
  variants: Record<string, number | string> | null;
}

/** Rows of one bucket (time, app, environment) together, in the order read. */
function group<R extends Raw>(
  rows: R[],
  at: (r: R) => string,
): { app: string; environment: string; at: string; rows: BucketRow[] }[] {
  const out = new Map<string, { app: string; environment: string; at: string; rows: BucketRow[] }>();
  for (const r of rows) {
    const t = at(r);
    const k = JSON.stringify([t, r.app_name, r.environment]);
    let b = out.get(k);
    if (!b) out.set(k, (b = { app: r.app_name, environment: r.environment, at: t, rows: [] }));
    const variants: Record<string, number> = {};
    for (const [name, n] of Object.entries(r.variants ?? {})) variants[name] = Number(n);
    b.rows.push({ feature: r.feature_name, yes: Number(r.yes ?? 0), no: Number(r.no ?? 0), variants });
  }
  return [...out.values()];
}
