/**
 * Measures the instance insights over 2 years × 200 projects (200k simulated events, seed 42): projector
 * load with and without the insights projection on the same events (event log + projections, 5,000 events
 * per transaction, no Kafka), the report's statements in Postgres, and GET /api/admin/dashboard/executive
 * with autocannon (its own process) at 10 connections for 15 s. Drops and recreates two databases.
 *
 *   npx ts-node -r tsconfig-paths/register --transpile-only scripts/bench-insights.ts
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { join } from 'node:path';
import type { FlagEvent } from '@flaglens/contract';
import { loadConfig } from '@flaglens/config';
import { Database, searchPathOption } from '@flaglens/persistence';
import {
  allProjections,
  applyProjections,
  appendEvents,
  InsightsReadModel,
  type Projection,
} from '@flaglens/projections';
import { generateHistory } from '@flaglens/testing/generate-history';
import { createApiApp } from '../apps/api/src/main';
import { freshDatabase } from '../bench/bench-db';

const NOW = '2026-11-22T09:01:00Z';

async function load(name: string, events: FlagEvent[], projections: Projection[]): Promise<string> {
  const url = await freshDatabase(name);
  const ds = new Database({
    url,
    max: 2,
    applicationName: 'bench',
    options: searchPathOption('flaglens_v1'),
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
    await applyProjections(c, stored, projections);
    await c.query('COMMIT');
  }
  const ms = Date.now() - t0;
  console.log(
    `${name}: ${projections.length} projections, ${events.length} events in ${ms} ms (${Math.round(events.length / (ms / 1000))} events/s)`,
  );
  await c.query('VACUUM ANALYZE');
  if (projections.some((p) => p.name === 'insights')) {
    const model = new InsightsReadModel(ds);
    for (let i = 0; i < 5; i++) {
      const t = Date.now();
      const r = await model.report(new Date(NOW));
      console.log(
        `report in-process: ${Date.now() - t} ms, ${r.flagTrends.length} weeks, ${r.projectFlagTrends.length} project rows, ${JSON.stringify(r).length} bytes`,
      );
    }
    const t = Date.now();
    await model.report(new Date(NOW), { from: '2026-10-22', to: '2026-11-22' });
    console.log(`report for the last month: ${Date.now() - t} ms`);
    for (const table of [
      'insights_flag_deltas',
      'insights_user_weeks',
      'insights_metrics',
      'insights_env_project_updates',
    ])
      console.log(table, (await c.query(`SELECT count(*) FROM ${table}`)).rows[0].count);
  }
  c.release();
  await ds.end();
  return url;
}

async function main(): Promise<void> {
  const events = generateHistory({
    seed: 42,
    projects: 200,
    flagsPerProject: 50,
    events: 200_000,
    weeks: 104,
    end: NOW,
  });
  await load(
    'flaglens_bench_insights_without',
    events,
    allProjections().filter((p) => p.name !== 'insights'),
  );
  const url = await load('flaglens_bench_insights', events, allProjections());

  const port = 4891;
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
  for (const path of [
    '/api/admin/dashboard/executive',
    '/api/admin/insights?from=2026-10-22&to=2026-11-22',
  ]) {
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [
        join(__dirname, '..', 'node_modules', 'autocannon', 'autocannon.js'),
        '-j',
        '-c',
        '10',
        '-d',
        '15',
        `http://127.0.0.1:${port}${path}`,
      ],
      { maxBuffer: 64 * 1024 * 1024 },
    );
    const r = JSON.parse(stdout);
    console.log(
      `${path} connections=10: ${r.requests.average} req/s, latency p50 ${r.latency.p50} ms, p99 ${r.latency.p99} ms, max ${r.latency.max} ms, non-2xx ${r.non2xx}, errors ${r.errors}`,
    );
  }
  await app.close();
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
