import type { Client, ClientConfig } from 'pg';
import { openClient } from '@flaglens/persistence';
import type { Gap } from './gaps';
import { parseSnapshot, type Snapshot } from './gaps';
import { SourceError } from './errors';
import type { UnleashRelease } from '@flaglens/contract';

/** One event row, already in the wire shape of `GET /api/admin/events/{flag}` (built by Postgres). */
export interface EventRow {
  id: number;
  /** The contract's key: featureName, else project, else `instance`. */
  key: string;
  /** The JSON value to produce. */
  value: string;
  /** created_at, seconds since the epoch (null when the row has none). */
  at: number | null;
}

export interface PollResult {
  snapshot: Snapshot;
  /** The Unleash release line the database is at (its `migrations`), when it could be read. */
  release: UnleashRelease | null;
  newestId: number;
  newestAt: number | null;
  /** Rows found inside open gaps. */
  gapRows: EventRow[];
  /** Rows above hwm, ascending, at most `limit`. */
  newRows: EventRow[];
}

/**
 * The Unleash release lines flaglens supports, told apart by the migrations Unleash's database has run:
 * `7` from `20250630114145-add-transaction-context-to-events` (7.0: `events.group_type`, `group_id`), `8` from
 * `20260601105104-add-sunset-feature-type` (the first migration 8.2.0 has that 7.6.5 lacks).
 */
export type { UnleashRelease };

export const RELEASE_MARKERS: ReadonlyArray<{ release: UnleashRelease; migration: string }> = [
  { release: '8', migration: '20260601105104-add-sunset-feature-type' },
  { release: '7', migration: '20250630114145-add-transaction-context-to-events' },
];

/**
 * The wire shape of Unleash's event list (semantics §1: `rowToEvent` + `serializeDates`): this key order,
 * `createdAt` in UTC with milliseconds, `tags` defaulting to `[]`; `data` (json) is embedded as stored; from
 * 7.0 (`grouped`), `groupType` and `groupId` after the others, only when set (as 7+ answers them). The key
 * follows `eventKey` of the contract (an empty string counts as absent, as there).
 */
const wireColumns = (grouped: boolean): string => {
  const object = `json_build_object(
    'id', e.id, 'type', e.type, 'createdBy', e.created_by,
    'createdAt', to_char(e.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
    'createdByUserId', e.created_by_user_id, 'data', e.data, 'preData', e.pre_data,
    'tags', CASE WHEN e.tags IS NULL OR json_typeof(e.tags) = 'null' THEN '[]'::json ELSE e.tags END,
    'featureName', e.feature_name, 'project', e.project, 'environment', e.environment)::text`;
  const value = grouped
    ? `CASE WHEN NULLIF(e.group_type, '') IS NULL AND NULLIF(e.group_id, '') IS NULL THEN ${object}
       ELSE left(${object}, -1)
         || COALESCE(', "groupType" : ' || to_json(NULLIF(e.group_type, ''))::text, '')
         || COALESCE(', "groupId" : ' || to_json(NULLIF(e.group_id, ''))::text, '') || '}' END`
    : object;
  return `e.id,
  COALESCE(NULLIF(e.feature_name, ''), NULLIF(e.project, ''), 'instance') AS key,
  ${value} AS value,
  extract(epoch FROM e.created_at)::float8 AS at`;
};

/** Columns of `events` the connector needs (Unleash 6.x; 7.0 adds `group_type`, `group_id`, read when there). */
const EVENT_COLUMNS = [
  'id',
  'created_at',
  'type',
  'created_by',
  'created_by_user_id',
  'data',
  'pre_data',
  'tags',
  'feature_name',
  'project',
  'environment',
];

/** SDK tables the connector reads when they are there (each is optional: a missing grant or table is said). */
export const SDK_TABLES = [
  'last_seen_at_metrics',
  'client_applications',
  'client_applications_usage',
  'client_instances',
  'client_metrics_env',
  'client_metrics_env_variants',
  'client_metrics_env_daily',
  'client_metrics_env_variants_daily',
] as const;

type RawRow = { id: number; key: string; value: string; at: number | null; in_gap?: boolean };

const toRow = (r: RawRow): EventRow => ({ id: Number(r.id), key: r.key, value: r.value, at: r.at });

/** A read-only session on Unleash's database. Never writes: every transaction is READ ONLY. */
export class UnleashDb {
  /** Whether the role can read Unleash's `migrations` (the release is unknown otherwise). */
  private migrationsReadable = false;

  private constructor(private readonly client: Client) {}

  static async connect(url: string, applicationName = 'flaglens-source'): Promise<UnleashDb> {
    // the URL's own `options` (e.g. `-c search_path=unleash` for a schema other than public) are kept: pg
    // lets the URL's parameters override the config's, so they are moved into the config's
    const u = new URL(url);
    const own = u.searchParams.get('options');
    u.searchParams.delete('options');
    const config: ClientConfig = {
      connectionString: u.toString(),
      application_name: applicationName,
      connectionTimeoutMillis: 5000,
      keepAlive: true,
      // every statement of this session is read-only; UTC for date arithmetic
      options: [own, '-c default_transaction_read_only=on', '-c TimeZone=UTC'].filter(Boolean).join(' '),
    };
    const client = openClient(config); // a lost connection surfaces on the next query
    await client.connect();
    return new UnleashDb(client);
  }

  async close(): Promise<void> {
    await this.client.end().catch(() => undefined);
  }

  /**
   * Checks this is Unleash's database and the role may read it: exit 2 (SourceError) with the reason
   * otherwise. Returns the SDK tables that can be read (missing ones are reported by the caller).
   */
  async check(): Promise<{ sdkTables: string[]; missingSdk: string[] }> {
    const cols = await this.client.query<{ column_name: string }>(
      `SELECT column_name FROM information_schema.columns
        WHERE table_schema = current_schema() AND table_name = 'events'`,
    );
    if (cols.rowCount === 0)
      throw new SourceError(
        'not-unleash',
        `no "events" table in schema ${await this.schema()}: this is not Unleash's database (or the role cannot see it)`,
      );
    const have = new Set(cols.rows.map((r) => r.column_name));
    const missing = EVENT_COLUMNS.filter((c) => !have.has(c));
    if (missing.length > 0)
      throw new SourceError(
        'not-unleash',
        `table "events" lacks ${missing.join(', ')}: not an Unleash 6.x events table`,
      );
    const priv = await this.client.query<{ ok: boolean; migrations: boolean | null }>(
      `SELECT has_table_privilege(current_user, 'events', 'SELECT') AS ok,
              CASE WHEN to_regclass('migrations') IS NULL THEN NULL
                   ELSE has_table_privilege(current_user, 'migrations', 'SELECT') END AS migrations`,
    );
    this.migrationsReadable = priv.rows[0].migrations === true;
    if (!priv.rows[0].ok)
      throw new SourceError(
        'no-grant',
        `the role cannot read "events": GRANT SELECT ON events TO <role> (see docs/source-connector.md)`,
      );
    const sdk = await this.client.query<{ t: string; ok: boolean | null }>(
      `SELECT t, CASE WHEN to_regclass(t) IS NULL THEN NULL ELSE has_table_privilege(current_user, t, 'SELECT') END AS ok
         FROM unnest($1::text[]) AS t`,
      [SDK_TABLES],
    );
    return {
      sdkTables: sdk.rows.filter((r) => r.ok).map((r) => r.t),
      missingSdk: sdk.rows.filter((r) => !r.ok).map((r) => r.t),
    };
  }

  private async schema(): Promise<string> {
    return (await this.client.query<{ s: string }>('SELECT current_schema() AS s')).rows[0].s;
  }

  /**
   * One read in one REPEATABLE READ snapshot: the snapshot itself, Unleash's newest event, its release, the
   * rows that appeared inside open gaps, and up to `limit` rows above `hwm`.
   *
   * Whether `events` has 7.0's `group_type` and `group_id` is asked in the same transaction, before the rows
   * are read: an Unleash upgraded in place adds them while the connector follows, and the catalog is never
   * older than the transaction's snapshot, so a row that could carry a group is never read without it.
   */
  async poll(hwm: number, gaps: readonly Gap[], limit: number): Promise<PollResult> {
    const c = this.client;
    await c.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
    try {
      const markers = RELEASE_MARKERS.map(
        (m) => `bool_or(name LIKE '%${m.migration}') AS "${m.release}"`,
      ).join(', ');
      const head = await c.query<{
        snap: string;
        newest_id: number | null;
        newest_at: number | null;
        grouped: boolean;
        release: { [release: string]: boolean | null } | null;
      }>(
        `SELECT pg_current_snapshot()::text AS snap, n.id AS newest_id,
                extract(epoch FROM n.created_at)::float8 AS newest_at,
                EXISTS (SELECT 1 FROM pg_attribute WHERE attrelid = 'events'::regclass AND attnum > 0
                           AND NOT attisdropped AND attname IN ('group_type', 'group_id')
                         HAVING count(*) = 2) AS grouped,
                ${this.migrationsReadable ? `(SELECT row_to_json(m) FROM (SELECT ${markers} FROM migrations) m)` : 'NULL'} AS release
           FROM (SELECT 1) x LEFT JOIN LATERAL (SELECT id, created_at FROM events ORDER BY id DESC LIMIT 1) n ON true`,
      );
      const columns = wireColumns(head.rows[0].grouped);
      // the rows above hwm: limited first, the JSON built for those only; each gap: an index range scan
      const above = `SELECT false AS in_gap, ${columns}
           FROM (SELECT * FROM events WHERE id > $1 ORDER BY id LIMIT $2) e`;
      const rows = await c.query<RawRow>(
        gaps.length === 0
          ? above
          : `${above}
         UNION ALL
         SELECT true AS in_gap, ${columns}
           FROM unnest($3::bigint[], $4::bigint[]) AS r(lo, hi)
           CROSS JOIN LATERAL (SELECT * FROM events WHERE id BETWEEN r.lo AND r.hi) e`,
        gaps.length === 0 ? [hwm, limit] : [hwm, limit, gaps.map((g) => g.lo), gaps.map((g) => g.hi)],
      );
      await c.query('COMMIT');
      const gapRows: EventRow[] = [];
      const newRows: EventRow[] = [];
      for (const r of rows.rows) (r.in_gap ? gapRows : newRows).push(toRow(r));
      newRows.sort((a, b) => a.id - b.id);
      const found = head.rows[0].release;
      return {
        snapshot: parseSnapshot(head.rows[0].snap),
        release: found ? (RELEASE_MARKERS.find((m) => found[m.release])?.release ?? '6') : null,
        newestId: Number(head.rows[0].newest_id ?? 0),
        newestAt: head.rows[0].newest_at,
        gapRows,
        newRows,
      };
    } catch (e) {
      await c.query('ROLLBACK').catch(() => undefined);
      throw e;
    }
  }

  /** Unleash's database time (the SDK buckets are closed by its clock, not ours). */
  async now(): Promise<Date> {
    return (await this.client.query<{ now: Date }>('SELECT now() AS now')).rows[0].now;
  }

  async query<T extends object>(sql: string, params: unknown[] = []): Promise<T[]> {
    return (await this.client.query<T>(sql, params)).rows;
  }
}
