/*
 * `npm run bench:search [-- --events N --seconds S]`: the event search of flaglens and of the real Unleash 8.2.0
 * on the same generated events, filter by filter, uncached, 10 connections.
 *
 * 1. starts Unleash 8.2.0 on a fresh database (conformance/unleash-peer.ts: its own migrations, so its `events`
 *    table and indexes are its own) and inserts N events (default 10M) into that table, in chunks of one
 *    INSERT … SELECT generate_series each: 12 types, 20 projects (1% without one), 3 environments (a third
 *    without one), 50 authors, 20,000 flags (9% without one), a group per 4 events, a year of `created_at`,
 *    tags on every 7th event, `pre_data` on every 5th; `data` compact JSON as Unleash stores it;
 * 2. copies those rows into a fresh flaglens database's `event_log` (COPY out of Unleash's table into COPY
 *    in, the body in the contract's shape and the search texts as Unleash casts its columns: what the
 *    projector stores for the same events), with the search's indexes built after the copy and
 *    `event_search_counts` filled from the log as its migration fills it; VACUUM ANALYZE
 *    on both sides;
 * 3. starts flaglens's api on it with its cache off (API_CACHE_MB=0: every answer is read), and checks that
 *    both sides answer each request alike (status, total, first page's ids);
 * 4. loads each request for S seconds (default 10) at 10 connections on each side in turn (the bench's load
 *    tool: wrk, else autocannon; wrk's timeout is 5 s, a slower answer counts as an error), and prints
 *    p50/p99/req/s per side and the ratio of the p99s.
 * Unleash, both databases and the api are stopped and dropped at the end, also on failure.
 */
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from 'pg';
import { from as copyFrom, to as copyTo } from 'pg-copy-streams';
import { createToken } from '@flaglens/testing/support/cli';
import { createTestDatabase } from '@flaglens/testing/support/test-database';
import { freePort, httpGet } from '@flaglens/testing/support/http';
import { startApp, stopApp } from '@flaglens/testing/support/processes';
import { waitFor } from '@flaglens/testing/support/wait-for';
import { installPeer, startPeer, type Peer } from '../conformance/unleash-peer';
import { load, loadTool, type LoadResult } from './load';
import {
  ENVIRONMENT_TYPE_COUNTS_FROM_LOG,
  SEARCH_COUNTS_FROM_LOG,
  SEARCH_TEXT_INDEX,
} from '@flaglens/projections';

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
const EVENTS = arg('events', 10_000_000);
const SECONDS = arg('seconds', 10);
const CONNECTIONS = 10;
const CHUNK = 1_000_000;
const started = Date.now();
const log = (m: string) =>
  process.stderr.write(`[bench:search ${((Date.now() - started) / 1000).toFixed(0)}s] ${m}\n`);

const TYPES = [
  'feature-created',
  'feature-updated',
  'feature-environment-enabled',
  'feature-environment-disabled',
  'feature-strategy-update',
  'feature-strategy-add',
  'feature-tagged',
  'feature-archived',
  'feature-metadata-updated',
  'project-created',
  'user-created',
  'segment-updated',
];

/** N events into Unleash's own table, as its code writes them (ids from its sequence). */
async function fillUnleash(db: Client, from: number, to: number): Promise<void> {
  await db.query(
    `INSERT INTO events (type, created_by, created_by_user_id, data, pre_data, tags, project, environment,
                         feature_name, created_at, group_type, group_id, announced)
     SELECT ($3::text[])[1 + g % 12], 'user' || (g % 50) || '@example.com', 1 + g % 50,
            ('{"name":"flag-' || (g % 20000) || '","description":"generated event ' || g || ' word' || (g % 1000) ||
              '","enabled":' || (g % 2 = 0) || '}')::json,
            CASE WHEN g % 5 = 0 THEN jsonb_build_object('name', 'flag-' || (g % 20000), 'enabled', g % 2 = 1) END,
            CASE WHEN g % 7 = 0 THEN ('[{"value":"team-' || (g % 30) || '","type":"simple"}]')::json ELSE '[]'::json END,
            CASE WHEN g % 100 = 99 THEN NULL ELSE 'project-' || (g % 20) END,
            (ARRAY[NULL, 'development', 'production'])[1 + g % 3],
            CASE WHEN g % 11 = 0 THEN NULL ELSE 'flag-' || (g % 20000) END,
            '2025-01-01T00:00:00Z'::timestamptz + g * ($4::double precision * interval '1 second'),
            CASE WHEN g % 4 = 0 THEN 'transaction' END,
            CASE WHEN g % 4 = 0 THEN 'grp-' || (g / 4) END,
            true -- announced: Unleash's announcer would otherwise load every generated row
       FROM generate_series($1::bigint, $2::bigint) AS g`,
    [from, to, TYPES, (365 * 86_400) / EVENTS],
  );
}

/**
 * The search's indexes as the migrations leave them (event-log-search.migration.ts, then
 * event-search-speed.migration.ts), dropped while the copy runs and built after it.
 */
const SEARCH_INDEXES = [
  SEARCH_TEXT_INDEX,
  ...['type', 'project', 'environment', 'created_by_user_id', 'group_id'].map(
    (c) => `CREATE INDEX event_log_${c}_created_idx ON event_log (${c}, created_at DESC, id DESC)`,
  ),
];

/** Unleash's rows into flaglens's event log: the body in the contract's shape, the texts as Unleash casts them. */
async function copyToFlaglens(unleash: Client, flaglens: Client): Promise<void> {
  for (const i of SEARCH_INDEXES) await flaglens.query(`DROP INDEX IF EXISTS ${/INDEX (\S+)/.exec(i)![1]}`);
  const out = unleash.query(
    copyTo(`COPY (
      SELECT id, created_at, type, feature_name, project, environment, created_by, created_by_user_id, true,
             json_build_object('id', id, 'type', type, 'createdBy', created_by,
               'createdAt', to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
               'createdByUserId', created_by_user_id, 'data', data, 'preData', pre_data, 'tags', tags,
               'featureName', feature_name, 'project', project, 'environment', environment,
               'groupType', group_type, 'groupId', group_id)::text,
             group_type, group_id, data::text, COALESCE(tags::text, '[]'), pre_data::text
        FROM events ORDER BY id) TO STDOUT`),
  );
  const into = flaglens.query(
    copyFrom(
      `COPY event_log (id, created_at, type, feature_name, project, environment, created_by, created_by_user_id,
                       known_type, body, group_type, group_id, data_text, tags_text, pre_data_text) FROM STDIN`,
    ),
  );
  await pipeline(out as unknown as Readable, into);
  for (const i of SEARCH_INDEXES) {
    const t = Date.now();
    await flaglens.query(i);
    log(`${/INDEX (\S+)/.exec(i)![1]} built in ${((Date.now() - t) / 1000).toFixed(0)} s`);
  }
  // the search's counts, as the migration computes them from a stored log (the projector keeps them after)
  const t = Date.now();
  await flaglens.query(SEARCH_COUNTS_FROM_LOG);
  await flaglens.query(ENVIRONMENT_TYPE_COUNTS_FROM_LOG);
  log(`event_search_counts filled in ${((Date.now() - t) / 1000).toFixed(0)} s`);
}

interface Side {
  name: 'unleash' | 'flaglens';
  port: number;
  headers: Record<string, string>;
}

async function main(): Promise<void> {
  const tool = loadTool();
  installPeer(log, '8.2.0');
  const cleanups: (() => Promise<unknown>)[] = [];
  let peer: Peer | undefined;
  try {
    peer = await startPeer(await freePort(), undefined, { version: '8.2.0' });
    cleanups.unshift(() => peer!.stop());
    log(`Unleash 8.2.0 up on ${peer.url} (database ${peer.db})`);
    const unleashDb = new Client({ connectionString: peer.dbUrl });
    await unleashDb.connect();
    cleanups.unshift(() => unleashDb.end());
    for (let from = 1; from <= EVENTS; from += CHUNK) {
      await fillUnleash(unleashDb, from, Math.min(EVENTS, from + CHUNK - 1));
      log(`Unleash events: ${Math.min(EVENTS, from + CHUNK - 1)} of ${EVENTS}`);
    }
    await unleashDb.query('VACUUM ANALYZE events');

    const db = await createTestDatabase('bench_search');
    cleanups.unshift(() => db.drop());
    const schema = (await db.query<{ s: string }>('SELECT current_schema() AS s'))[0].s;
    const flaglensDb = new Client({ connectionString: db.url, options: `-c search_path=${schema},public` });
    await flaglensDb.connect();
    cleanups.unshift(() => flaglensDb.end());
    const c0 = Date.now();
    await copyToFlaglens(unleashDb, flaglensDb);
    await flaglensDb.query('VACUUM ANALYZE event_log');
    log(`flaglens event log copied and indexed in ${((Date.now() - c0) / 1000).toFixed(0)} s`);

    const port = await freePort();
    const env = { DATABASE_URL: db.url, PORT: String(port), API_CACHE_MB: '0', LOG_LEVEL: 'warn' };
    const api = startApp('api', env);
    cleanups.unshift(() => stopApp(api));
    await waitFor('the api up', async () => (await httpGet(port, '/health/live')).status === 200, {
      timeoutMs: 120_000,
    });
    const token = await createToken(env, '1');
    log('flaglens api up, token issued');
    const sides: Side[] = [
      { name: 'unleash', port: peer.port, headers: { authorization: peer.adminToken } },
      { name: 'flaglens', port, headers: { authorization: token } },
    ];
    const mid = Math.floor(EVENTS / 2);
    const requests: [string, string][] = [
      ['no filter', ''],
      ['type', 'type=IS:feature-tagged'],
      ['type, 3 values', 'type=IS_ANY_OF:feature-created,project-created,user-created'],
      ['project', 'project=IS:project-7'],
      ['feature', 'feature=IS:flag-1234'],
      ['createdBy', 'createdBy=IS:17'],
      ['environment', 'environment=IS:production'],
      ['id', `id=IS:${mid}`],
      ['groupId', `groupId=IS:grp-${Math.floor(mid / 4)}`],
      ['from + to (one day)', 'from=IS:2025-06-01&to=IS:2025-06-01'],
      ['from (a month)', 'from=IS:2025-12-01'],
      ['query, one event', `query=event%20${mid}%20word`],
      ['query, 0.1% of events', 'query=word123%22'],
      ['query, tags', 'query=team-7%22'],
      ['query, no match', 'query=no-such-text'],
      ['project + type + page 3', 'project=IS:project-7&type=IS:feature-environment-disabled&offset=100'],
    ];
    const rows: string[] = [];
    for (const [name, q] of requests) {
      const path = `/api/admin/search/events${q ? `?${q}` : ''}`;
      const probes = [];
      // a probe that fails (a side closed the connection) is recorded as status 0, and the load still runs
      for (const s of sides)
        probes.push(
          await httpGet(s.port, path, s.headers).catch((e: unknown) => {
            log(`${s.name} GET ${path} failed: ${String(e)}`);
            if (s.name === 'unleash') log(`Unleash printed: ${peer!.output.join('').slice(-3000)}`);
            return null;
          }),
        );
      const summary = probes.map((p) => {
        if (p === null) return { status: 0, total: undefined, ids: undefined };
        const j = p.status === 200 ? (p.json() as { events: { id: number }[]; total: number }) : null;
        return { status: p.status, total: j?.total, ids: j?.events.map((e) => e.id).join(',') };
      });
      const same = JSON.stringify(summary[0]) === JSON.stringify(summary[1]);
      log(
        `${name}: ${same ? 'same answer' : `DIFFERENT: ${JSON.stringify(summary)}`} (total ${summary[1].total})`,
      );
      const results: Record<string, LoadResult> = {};
      for (const s of sides)
        results[s.name] = await load(
          tool,
          `http://127.0.0.1:${s.port}${path}`,
          s.headers,
          CONNECTIONS,
          SECONDS,
        );
      const [u, f] = [results.unleash, results.flaglens];
      const ratio = (u.p99Ms / f.p99Ms).toFixed(1);
      const row = `| ${name} | ${summary[1].total} | ${u.p50Ms} / ${u.p99Ms} ms, ${u.reqPerSec} req/s${u.non2xx ? `, ${u.non2xx} errors` : ''} | ${f.p50Ms} / ${f.p99Ms} ms, ${f.reqPerSec} req/s${f.non2xx ? `, ${f.non2xx} errors` : ''} | ${ratio} |${same ? '' : ' answers differ'}`;
      rows.push(row);
      log(row);
    }
    const table = [
      `## event search, ${EVENTS} events, ${CONNECTIONS} connections, ${SECONDS} s each, ${tool}, uncached`,
      '',
      '| request | total | Unleash 8.2.0 p50 / p99, req/s | flaglens p50 / p99, req/s | p99 Unleash ÷ flaglens |',
      '| --- | ---: | --- | --- | ---: |',
      ...rows,
    ].join('\n');
    process.stdout.write(`${table}\n`);
    const dir = join(__dirname, 'results');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, `search-${new Date().toISOString().replace(/[:.]/g, '-')}.md`), `${table}\n`);
  } finally {
    for (const c of cleanups) await c().catch(() => undefined);
  }
}

void main().then(
  () => process.exit(0),
  (e: unknown) => {
    log(`failed: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`);
    process.exit(1);
  },
);
