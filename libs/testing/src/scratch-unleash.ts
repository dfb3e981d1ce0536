import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from 'pg';
import { dropDatabaseWhenLeft } from './support/drop-database';

const DEFAULT_BASE_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/flaglens';
/** The Unleash releases a scratch database can be made as: each has its DDL in libs/source/test-fixtures. */
export const SCRATCH_RELEASES = ['6.10.1', '8.2.0'] as const;
export type ScratchRelease = (typeof SCRATCH_RELEASES)[number];
const ddl = (release: ScratchRelease) =>
  join(__dirname, '..', '..', 'source', 'test-fixtures', `unleash-${release}-schema.sql`);

function withDb(url: string, db: string): string {
  const u = new URL(url);
  u.pathname = `/${db}`;
  return u.toString();
}

export interface ScratchUnleash {
  url: string;
  name: string;
  /** The release whose DDL it has. */
  release: ScratchRelease;
  /** A connection of the test (it writes as Unleash would). */
  client: Client;
  /** A new connection, for concurrent transactions. */
  connect(): Promise<Client>;
  drop(): Promise<void>;
}

/**
 * A scratch "Unleash" database: the events and SDK tables with the DDL of Unleash `release` (6.10.1 unless
 * told: test-fixtures/unleash-<release>-schema.sql), on the machine's Postgres. 8.2.0's also has the
 * `migrations` table with the rows a fresh 8.2.0 ran, so the connector sees release 8 (6.10.1's has no
 * `migrations`: release unknown). Tests and the bench write rows into it as Unleash would; the conformance run
 * uses the real Unleash instead.
 */
export async function createScratchUnleash(
  label: string,
  BASE_URL = DEFAULT_BASE_URL,
  { release = '6.10.1' }: { release?: ScratchRelease } = {},
): Promise<ScratchUnleash> {
  const name = `flaglens_t_unleash_${label.replace(/[^a-z0-9]/gi, '_').toLowerCase()}_${randomBytes(3).toString('hex')}`;
  const admin = new Client({ connectionString: withDb(BASE_URL, 'postgres') });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = withDb(BASE_URL, name);
  const connect = async () => {
    const c = new Client({ connectionString: url });
    c.on('error', () => undefined);
    await c.connect();
    return c;
  };
  const client = await connect();
  await client.query(readFileSync(ddl(release), 'utf8'));
  return {
    url,
    name,
    release,
    client,
    connect,
    drop: async () => {
      await client.end().catch(() => undefined);
      await dropDatabaseWhenLeft(withDb(BASE_URL, 'postgres'), name);
    },
  };
}

/**
 * `group_type` and `group_id` as 7.0+ writes them: the events of one transactional service call share
 * `'transaction'` and a ULID (Crockford base32: 10 characters of the call's time in ms, here its first event's
 * `created_at`, then 16 random ones). Here 4 consecutive events a call, and every 5th call's events outside one
 * (both NULL, as events written without a transaction are).
 */
const GROUP_COLUMNS = `,
            CASE WHEN (g - 1) / 4 % 5 <> 4 THEN 'transaction' END,
            CASE WHEN (g - 1) / 4 % 5 <> 4 THEN
              (SELECT string_agg(substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ',
                                        ((ms >> (5 * (9 - i))) & 31)::int + 1, 1),
                                 '' ORDER BY i)
                 FROM generate_series(0, 9) AS i,
                      LATERAL (SELECT floor(extract(epoch FROM $3::timestamptz
                                 + ((g - 1) / 4 * 4 + 1) * interval '10 milliseconds') * 1000)::bigint AS ms) m)
              || upper(substr(md5($4 || ((g - 1) / 4)), 1, 16)) END`;

/**
 * Inserts `n` events as Unleash writes them (ids from its sequence): `flags` flags created, then strategy
 * updates and environment toggles on them, each valid for the contract, about 500 bytes of wire JSON each;
 * `created_at` 10 ms apart from `start`. On a table with 7.0's `group_type` and `group_id` (8.2.0's), those as
 * 7+/8 fill them (GROUP_COLUMNS). One statement (generate_series), so a million rows take seconds.
 */
export async function insertEvents(
  c: Pick<Client, 'query'>,
  n: number,
  { flags = 1000, start = '2026-01-01T00:00:00Z', prefix = 'gen' } = {},
): Promise<void> {
  const grouped =
    (
      await c.query<{ n: string }>(
        `SELECT count(*) AS n FROM information_schema.columns
          WHERE table_schema = current_schema() AND table_name = 'events' AND column_name IN ('group_type', 'group_id')`,
      )
    ).rows[0].n === '2';
  await c.query(
    `INSERT INTO events (type, created_by, created_by_user_id, data, pre_data, tags, project, environment, feature_name, created_at${grouped ? ', group_type, group_id' : ''})
     SELECT CASE WHEN g <= $2 THEN 'feature-created'
                 WHEN g % 3 = 0 THEN 'feature-environment-enabled'
                 WHEN g % 3 = 1 THEN 'feature-environment-disabled'
                 ELSE 'feature-strategy-update' END,
            'admin@example.com', 1,
            CASE WHEN g <= $2 THEN json_build_object('name', $4 || '-' || g, 'description', 'generated flag ' || g,
                                     'type', 'release', 'project', 'default', 'stale', false,
                                     'createdAt', to_char(t AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
                                     'lastSeenAt', NULL, 'impressionData', false, 'archived', false)
                 WHEN g % 3 = 2 THEN json_build_object('id', md5(g::text)::uuid, 'name', 'flexibleRollout', 'title', NULL,
                                     'disabled', false, 'sortOrder', 0, 'segments', '[]'::json,
                                     'constraints', json_build_array(json_build_object('contextName', 'userId',
                                         'operator', 'IN', 'values', json_build_array('u' || g, 'v' || g),
                                         'caseInsensitive', false, 'inverted', false)),
                                     'parameters', json_build_object('rollout', (g % 100)::text, 'stickiness', 'default',
                                         'groupId', $4 || '-' || ((g % $2) + 1)),
                                     'variants', '[]'::json)
                 ELSE NULL END,
            CASE WHEN g > $2 AND g % 3 = 2 THEN jsonb_build_object('name', 'flexibleRollout', 'parameters',
                                     jsonb_build_object('rollout', '0')) END,
            '[]'::json, 'default',
            CASE WHEN g <= $2 THEN NULL ELSE 'production' END,
            $4 || '-' || (CASE WHEN g <= $2 THEN g ELSE (g % $2) + 1 END),
            t${grouped ? GROUP_COLUMNS : ''}
       FROM generate_series(1, $1::int) AS g, LATERAL (SELECT $3::timestamptz + g * interval '10 milliseconds' AS t) x`,
    [n, flags, start, prefix],
  );
}
