/// <reference lib="dom" />
/// <reference lib="dom.iterable" />
/**
 * `npm run bench:console`: the web console's figures (issue 18), in one run.
 *
 * 1. The JavaScript size of the first load (esbuild's bundle, raw and gzip; the budget is 200 kB gzip).
 * 2. On the 2-year × 200-project simulated history (seed 42, 200,000 events through every projection) plus a
 *    flag with 100,000 events (`bench.huge`, event log only), with the api in this process (FLAGLENS_AUTH=off,
 *    FLAGLENS_CLOCK pinned) and Debian's Chromium (headless, puppeteer-core): per page, the time from the
 *    navigation's start to the first chart drawn (Insights: the `flaglens:first-chart` performance mark the
 *    console sets in uPlot's first draw) or to the page's first content (Flag, Project, Operations); the first
 *    run (the api's caches cold) apart from the warm runs' median. For the 100k-event flag also the time of
 *    a click on "Older" to the next page drawn.
 *
 * Writes bench/results/console-<UTC timestamp>.json. Options: --runs <n> (default 5), --reuse (keep the
 * database of an earlier run: flaglens_bench_console), --events <n> (default 200000).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cpus } from 'node:os';
import { Client } from 'pg';
import type { Page } from 'puppeteer-core';
import { loadConfig } from '@flaglens/config';
import { Database, migrateDatabase, searchPathOption } from '@flaglens/persistence';
import { allProjections, applyProjections, appendEvents, type SourcedEvent } from '@flaglens/projections';
import { generateHistory } from '@flaglens/testing/generate-history';
import { META_MIGRATIONS, VERSION_SCHEMA_MIGRATIONS, VERSION_SCHEMA_ROUTINES } from '../migrations';
import { createApiApp } from '../apps/api/src/main';
import { launchChromium } from '@flaglens/testing/support/browser';
import { freePort } from '@flaglens/testing/support/http';
import { median } from './stats';
import { cliArgs } from '@flaglens/testing/support/cli-args';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { build } = require('../scripts/build-console.js') as {
  build: () => Promise<Record<'js' | 'css' | 'html', { file: string; bytes: number; gzipBytes: number }>>;
};

const ROOT = join(__dirname, '..');
const BASE = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/flaglens';
const withDb = (db: string) => Object.assign(new URL(BASE), { pathname: `/${db}` }).toString();
const NOW = '2026-11-22T09:01:00.000Z';
const DB = 'flaglens_bench_console';
const HUGE = 'bench.huge';
const PROJECT = 'sim-project-1';
const args = cliArgs();
const RUNS = Number(args.value('--runs') ?? 5);
const EVENTS = Number(args.value('--events') ?? 200_000);

async function load(): Promise<string> {
  const url = withDb(DB);
  const admin = new Client({ connectionString: withDb('postgres') });
  await admin.connect();
  const exists = (await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [DB])).rowCount === 1;
  const reuse = exists && args.has('--reuse');
  if (reuse) console.log(`reusing ${DB}`);
  else {
    await admin.query(`DROP DATABASE IF EXISTS ${DB} WITH (FORCE)`);
    await admin.query(`CREATE DATABASE ${DB}`);
  }
  await admin.end();
  if (!reuse) {
    const migrator = new Client({ connectionString: url });
    await migrator.connect();
    await migrateDatabase(url, migrator, META_MIGRATIONS, VERSION_SCHEMA_MIGRATIONS, VERSION_SCHEMA_ROUTINES);
    await migrator.end();
  }
  const ds = new Database({
    url,
    max: 1,
    applicationName: 'bench-console',
    options: searchPathOption('flaglens_v1'),
  });
  const c = await ds.connect();
  if (!reuse) {
    const events = generateHistory({
      seed: 42,
      projects: 200,
      flagsPerProject: 50,
      events: EVENTS,
      weeks: 104,
      end: NOW,
    });
    const t0 = Date.now();
    const projections = allProjections();
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
    console.log(`history: ${events.length} events in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  }
  const huge = Number(
    (await c.query(`SELECT count(*) AS n FROM event_log WHERE feature_name = $1`, [HUGE])).rows[0].n,
  );
  if (huge === 100_000) {
    c.release();
    await ds.end();
    return url;
  }
  const firstId = Number((await c.query(`SELECT COALESCE(max(id), 0) AS m FROM event_log`)).rows[0].m);
  const t1 = Date.now();
  for (let from = 0; from < 100_000; from += 20_000) {
    const batch: SourcedEvent[] = [];
    for (let i = from; i < from + 20_000; i++)
      batch.push({
        event: {
          id: firstId + i + 1,
          createdAt: new Date(Date.UTC(2025, 0, 1) + i * 60_000).toISOString(),
          type: i % 3 ? 'feature-strategy-update' : 'feature-environment-enabled',
          createdBy: `user${i % 7}@example.com`,
          createdByUserId: 2,
          environment: i % 2 ? 'production' : 'development',
          project: 'default',
          featureName: HUGE,
          data: {
            name: 'flexibleRollout',
            constraints: [{ contextName: 'region', operator: 'IN', values: ['eu-west', 'us-east'] }],
            parameters: { rollout: String(i % 100), stickiness: 'default', groupId: HUGE },
          },
          preData: {
            name: 'flexibleRollout',
            constraints: [{ contextName: 'region', operator: 'IN', values: ['eu-west'] }],
            parameters: { rollout: String((i + 99) % 100), stickiness: 'default', groupId: HUGE },
          },
          tags: [{ value: 'checkout', type: 'team' }],
        },
        knownType: true,
        topic: 'bench',
        partition: 0,
        offset: i,
      });
    await c.query('BEGIN');
    await appendEvents(c, batch);
    await c.query('COMMIT');
  }
  console.log(`${HUGE}: 100000 events in ${((Date.now() - t1) / 1000).toFixed(1)} s`);
  await c.query('VACUUM ANALYZE');
  c.release();
  await ds.end();
  return url;
}

const round = (x: number) => Math.round(x);

/**
 * Navigates to `url` (a full load: index.html, the bundle, the api calls); ms from the navigation's start to
 * the first chart drawn (`ready` null: the console's `flaglens:first-chart` mark) or to `ready` (a selector)
 * being in the page.
 */
async function timeLoad(page: Page, url: string, ready: string | null): Promise<number> {
  await page.goto('about:blank');
  await page.goto(url, { waitUntil: 'domcontentloaded' });
  return page.evaluate(
    (selector: string | null) =>
      new Promise<number>((resolve) => {
        const check = () => {
          const mark = performance.getEntriesByName('flaglens:first-chart')[0];
          if (selector === null && mark) resolve(mark.startTime);
          else if (selector !== null && document.querySelector(selector)) resolve(performance.now());
          else requestAnimationFrame(check);
        };
        check();
      }),
    ready,
  );
}

async function main(): Promise<void> {
  const size = await build();
  console.log(
    `bundle: ${size.js.file} ${size.js.bytes} B, ${size.js.gzipBytes} B gzip; css ${size.css.gzipBytes} B gzip`,
  );
  const url = await load();
  const port = await freePort();
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
  const base = `http://127.0.0.1:${port}/console/`;
  const browser = await launchChromium();
  const results: Record<string, { firstMs: number; warmMs: number[]; warmMedianMs: number }> = {};
  let older: number[] = [];
  try {
    const page = await browser.newPage();
    await page.goto(base);
    await page.waitForSelector('#token');
    await page.type('#token', 'user:bench'); // FLAGLENS_AUTH=off: every caller is the admin
    await page.click('button[type=submit]');
    await page.waitForSelector('nav[aria-label="Pages"]');
    const pages: [string, string, string | null][] = [
      ['insights', '#/insights', null],
      ['insightsLastQuarter', '#/insights?from=2026-08-22&to=2026-11-22', null],
      ['project', `#/project/${PROJECT}`, '[data-card="health"]'],
      ['flag100k', `#/flag/${HUGE}`, '.events .event'],
      ['operations', '#/operations', '[data-section="partitions"]'],
    ];
    for (const [name, hash, ready] of pages) {
      const times: number[] = [];
      for (let i = 0; i <= RUNS; i++) times.push(await timeLoad(page, `${base}?run=${i}${hash}`, ready));
      results[name] = {
        firstMs: round(times[0]),
        warmMs: times.slice(1).map(round),
        warmMedianMs: round(median(times.slice(1))),
      };
      console.log(`${name}: first ${round(times[0])} ms, warm median ${round(median(times.slice(1)))} ms`);
    }
    // the 100k-event flag: "Older" to the next page drawn, a few pages deep
    await timeLoad(page, `${base}#/flag/${HUGE}`, '.events .event');
    older = [];
    for (let i = 0; i < RUNS; i++) {
      const firstId = await page.$eval('.events .event', (e) => e.getAttribute('data-event-id'));
      const t = await page.evaluate(() => performance.now());
      await page.click('.pager button[data-page="older"]');
      await page.waitForFunction(
        (id) => document.querySelector('.events .event')?.getAttribute('data-event-id') !== id,
        { polling: 'raf' },
        firstId,
      );
      older.push(round((await page.evaluate(() => performance.now())) - t));
    }
    console.log(`flag100k "Older": ${older.join(', ')} ms`);
  } finally {
    await browser.close();
    await app.close();
  }
  const out = {
    at: new Date().toISOString(),
    cores: cpus().length,
    history: {
      seed: 42,
      projects: 200,
      flagsPerProject: 50,
      events: EVENTS,
      weeks: 104,
      end: NOW,
      hugeFlagEvents: 100_000,
    },
    bundle: {
      js: size.js,
      css: size.css,
      html: size.html,
      firstLoadGzipBytes: size.js.gzipBytes + size.css.gzipBytes + size.html.gzipBytes,
      budgetJsGzipBytes: 200 * 1024,
    },
    loadMs: results,
    flag100kOlderPageMs: { runs: older, median: median(older) },
    runs: RUNS,
  };
  mkdirSync(join(ROOT, 'bench', 'results'), { recursive: true });
  const file = join(ROOT, 'bench', 'results', `console-${out.at.replace(/[:.]/g, '-')}.json`);
  writeFileSync(file, JSON.stringify(out, null, 2) + '\n');
  console.log(`wrote ${file}`);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
