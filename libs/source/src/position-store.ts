import type { Client } from 'pg';
import { openClient } from '@flaglens/persistence';
import type { Position } from './gaps';

/** Where the SDK tables have been read up to (see sdk-reader.ts). */
export interface SdkPosition {
  /** Hourly buckets (`client_metrics_env.timestamp`) from this instant on are produced from the hourly table. */
  hourlyFrom: string | null;
  /** Every hourly bucket up to this start has been produced. */
  hoursDone: string | null;
  /** Daily buckets of days before `hourlyFrom`'s have been produced. */
  dailyDone: boolean;
}

export interface SourcePosition extends Position {
  sdk?: SdkPosition;
  /** API mode: ids produced recently (below hwm), so a late row of the newest page is told apart. */
  recent?: number[];
  /** API mode: the last day copied by the backfill (`YYYY-MM-DD`), `done` once it is over. */
  day?: string;
  /** API mode: the Unleash release line last seen (an upgrade to 7 makes the backfill run again). */
  release?: string;
}

/** What `status` and the metrics show about a connector (written with the position). */
export interface SourceStatus {
  mode: 'database' | 'api';
  lastPollAt: string | null;
  newestId: number;
  newestAt: string | null;
  lagRows: number;
  lagSeconds: number;
  openGaps: number;
  rowsRead: number;
  produced: number;
  sdkProduced: number;
  state: 'backfilling' | 'following' | 'done' | 'retrying';
  message?: string;
  /**
   * The Unleash release line the connector found (database mode: Unleash's `migrations`), carried on each
   * event message (header `flaglens-unleash-release`); absent when it could not be told.
   */
  release?: string;
}

export interface StoredSource {
  source: string;
  origin: string;
  position: SourcePosition;
  status: SourceStatus | null;
  updatedAt: string;
}

/**
 * The connector's position in flaglens's own Postgres (`public.source_positions`: `public` survives
 * projection rebuilds). Written after the events it covers were acknowledged by Kafka, so a crash in
 * between re-sends them (the projector stores an id once).
 */
export class PositionStore {
  private constructor(private readonly client: Client) {}

  static async connect(url: string): Promise<PositionStore> {
    const client = openClient({
      connectionString: url,
      application_name: 'flaglens-source',
      connectionTimeoutMillis: 5000,
      keepAlive: true,
    });
    await client.connect();
    const t = await client.query<{ t: string | null }>(
      `SELECT to_regclass('public.source_positions')::text AS t`,
    );
    if (!t.rows[0].t) {
      await client.end();
      throw new Error('flaglens database has no source_positions table: run `npm run migrate`');
    }
    return new PositionStore(client);
  }

  async close(): Promise<void> {
    await this.client.end().catch(() => undefined);
  }

  async load(source: string): Promise<StoredSource | null> {
    const r = await this.client.query<{
      source: string;
      origin: string;
      position: SourcePosition;
      status: SourceStatus | null;
      updated_at: Date;
    }>(`SELECT source, origin, position, status, updated_at FROM public.source_positions WHERE source = $1`, [
      source,
    ]);
    const row = r.rows[0];
    return row
      ? {
          source: row.source,
          origin: row.origin,
          position: row.position,
          status: row.status,
          updatedAt: row.updated_at.toISOString(),
        }
      : null;
  }

  async save(source: string, origin: string, position: SourcePosition, status: SourceStatus): Promise<void> {
    await this.client.query(
      `INSERT INTO public.source_positions (source, origin, position, status, updated_at)
       VALUES ($1, $2, $3, $4, now())
       ON CONFLICT (source) DO UPDATE SET origin = EXCLUDED.origin, position = EXCLUDED.position,
                                          status = EXCLUDED.status, updated_at = now()`,
      [source, origin, JSON.stringify(position), JSON.stringify(status)],
    );
  }

  /** Every stored source (for `status`), through any query function that answers rows. */
  static async list(query: (sql: string) => Promise<unknown[]>): Promise<StoredSource[]> {
    const [t] = (await query(`SELECT to_regclass('public.source_positions')::text AS t`)) as {
      t: string | null;
    }[];
    if (!t?.t) return [];
    const rows = (await query(
      `SELECT source, origin, position, status, updated_at FROM public.source_positions ORDER BY source`,
    )) as {
      source: string;
      origin: string;
      position: SourcePosition;
      status: SourceStatus | null;
      updated_at: Date;
    }[];
    return rows.map((row) => ({
      source: row.source,
      origin: row.origin,
      position: row.position,
      status: row.status,
      updatedAt: new Date(row.updated_at).toISOString(),
    }));
  }
}
