/**
 * Measures GET /api/admin/projects/{id}/overview on a simulated project of 5,000 flags and 200k events
 * (BENCH_FLAGS, BENCH_EVENTS and BENCH_SECONDS change the size and the duration of each run).
 * Loads the history straight through the projections (event log + every projection, 5,000 events per
 * transaction, as the projector applies a batch; no Kafka in the loop), starts the api in-process, runs
 * autocannon at 10 and 50 connections for 15 s each, and prints EXPLAIN ANALYZE of the overview's queries.
 *
 *   npx ts-node -r tsconfig-paths/register --transpile-only scripts/bench-overview.ts
 *   BENCH_FLAGS=200 BENCH_EVENTS=8000 npx ts-node -r tsconfig-paths/register --transpile-only scripts/bench-overview.ts
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { join } from 'node:path';
import { loadConfig } from '@flaglens/config';
import { Database, searchPathOption } from '@flaglens/persistence';
import { allProjections, appendEvents, OVERVIEW_SQL, applyProjections } from '@flaglens/projections';
import { generateHistory } from '@flaglens/testing/generate-history';
import { freshDatabase } from '../bench/bench-db';
import { createApiApp } from '../apps/api/src/main';

const FLAGS = Number(process.env.BENCH_FLAGS ?? 5000);
const EVENTS = Number(process.env.BENCH_EVENTS ?? 200_000);
const DURATION = process.env.BENCH_SECONDS ?? '15';
const NAME = process.env.BENCH_DB ?? `flaglens_bench_overview_${FLAGS}`;
const NOW = '2026-11-22T09:01:00Z';

async function main(): Promise<void> {
  const url = await freshDatabase(NAME);
  const ds = new Database({
    url,
    max: 2,
    applicationName: 'bench',
    options: searchPathOption('flaglens_v1'),
  });

  const events = generateHistory({
    seed: 42,
    projects: 1,
    flagsPerProject: FLAGS,
    events: EVENTS,
    weeks: 26,
    end: NOW,
  });
  const c = await ds.connect();
  const t0 = Date.now();
  for (let i = 0; i < events.length; i += 5000) {
    await c.query('BEGIN');
    const stored = await appendEvents(
      c,
      events
        .slice(i, i + 5000)
        .map((event) => ({ event, knownType: true, topic: null, partition: null, offset: null })),
    );
    await applyProjections(c, stored, allProjections());
    await c.query('COMMIT');
  }
  const loadMs = Date.now() - t0;
  await c.query('VACUUM ANALYZE');
  console.log(
    `loaded ${events.length} events in ${loadMs} ms (${Math.round(events.length / (loadMs / 1000))} events/s)`,
  );
  const plan = await c.query(`EXPLAIN (ANALYZE, BUFFERS) ${OVERVIEW_SQL}`, ['default', NOW, false]);
  console.log(plan.rows.map((r: Record<string, string>) => r['QUERY PLAN']).join('\n'));
  c.release();
  await ds.end();

  const port = 4890;
  const app = await createApiApp(
    loadConfig({
      DATABASE_URL: url,
      PORT: String(port),
      FLAGLENS_CLOCK: NOW,
      LOG_LEVEL: 'warn',
      FLAGLENS_AUTH: 'off',
    }),
  );
  await app.listen(port, '127.0.0.1');
  const body = await (await fetch(`http://127.0.0.1:${port}/api/admin/projects/default/overview`)).json();
  console.log(JSON.stringify(body));
  const target = `http://127.0.0.1:${port}/api/admin/projects/default/overview`;
  for (const connections of [10, 50]) {
    // autocannon in its own process, so it does not share the api's event loop
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [
        join(__dirname, '..', 'node_modules', 'autocannon', 'autocannon.js'),
        '-j',
        '-c',
        String(connections),
        '-d',
        DURATION,
        target,
      ],
      { maxBuffer: 64 * 1024 * 1024 },
    );
    const r = JSON.parse(stdout);
    console.log(
      `connections=${connections}: ${r.requests.average} req/s, latency p50 ${r.latency.p50} ms, p99 ${r.latency.p99} ms, max ${r.latency.max} ms, non-2xx ${r.non2xx}, errors ${r.errors}`,
    );
  }
  await app.close();
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
