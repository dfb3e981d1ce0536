/**
 * `npm run bench:hardening`: the figures of reads of any size (issue 14), in one run.
 *
 * 1. A flag with 1,000,000 events (loaded straight into the event log, COPY, 20,000 per transaction): the api
 *    runs compiled as its own process (FLAGLENS_AUTH=off), with the heap options of `npm start`; 4 readers ask for the list at once. Per reader: time to the
 *    first byte, total time, bytes. For the api: its peak RSS (VmHWM, before and after) and the longest
 *    event-loop delay during the reads (prom-client's `nodejs_eventloop_lag_max_seconds`, reset by a scrape
 *    just before).
 * 2. The instance insights over 2 years x 200 projects (simulated, seed 42, through every projection), then
 *    with one more event dated 1000-01-01: the uncached report's time and length, before and after.
 *
 * Writes bench/results/hardening-<UTC timestamp>.json. Options: --events <n> (default 1000000),
 * --readers <n> (default 4), --insights-events <n> (default 200000; 0 skips it).
 */
import { execSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { cpus } from 'node:os';
import { Database, searchPathOption } from '@flaglens/persistence';
import { appendEvents, InsightsReadModel, type SourcedEvent } from '@flaglens/projections';
import { freshDatabase, withClient } from './bench-db';
import { applyTagEventAt, FAR_PAST_NOW, loadFarPastHistory } from './insights';
import { strategyUpdate } from '@flaglens/testing/support/event-factory';
import { freePort } from '@flaglens/testing/support/http';
import { cliArgs } from '@flaglens/testing/support/cli-args';
import { appNodeOptions } from '@flaglens/testing/support/processes';

const ROOT = join(__dirname, '..');
const NOW = FAR_PAST_NOW;

/** A million events of one flag, as the reference writes them (strategy updates with constraints). */
async function loadFlag(url: string, flag: string, n: number, firstId: number): Promise<void> {
  const t0 = Date.now();
  await withClient(url, async (c) => {
    for (let from = 0; from < n; from += 20_000) {
      const batch: SourcedEvent[] = [];
      for (let i = from; i < Math.min(n, from + 20_000); i++)
        batch.push({
          event: strategyUpdate(firstId + i + 1, flag, i, { base: Date.UTC(2024, 0, 1), stepMs: 1000 }),
          knownType: true,
          topic: 'bench',
          partition: 0,
          offset: firstId + i,
        });
      await c.query('BEGIN');
      await appendEvents(c, batch);
      await c.query('COMMIT');
    }
    const warm: SourcedEvent[] = Array.from({ length: 6000 }, (_, i) => ({
      event: {
        id: 900_000_000 + i + 1,
        createdAt: new Date(Date.UTC(2024, 0, 1) + i * 1000).toISOString(),
        type: 'feature-updated',
        createdBy: 'bench',
        createdByUserId: 1,
        environment: null,
        project: 'default',
        featureName: 'warm.flag',
        data: { i },
        preData: null,
        tags: null,
      },
      knownType: true,
      topic: 'bench',
      partition: 1,
      offset: i,
    }));
    if (firstId === 0) {
      // a 6,000-event list to warm the streaming path up before measuring
      await c.query('BEGIN');
      await appendEvents(c, warm);
      await c.query('COMMIT');
    }
    await c.query('VACUUM ANALYZE event_log');
  });
  console.log(`loaded ${n} events of ${flag} in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
}

function startApi(env: Record<string, string>): ChildProcess {
  const child = spawn(
    process.execPath,
    [
      // e.g. API_NODE_ARGS="--max-old-space-size=160 --trace-gc" (flags NODE_OPTIONS does not take)
      ...(process.env.API_NODE_ARGS ?? API_NODE_OPTIONS).split(' ').filter(Boolean),
      // compiled, as deployed (main() builds first)
      '-r',
      join(ROOT, 'scripts/dist-paths.js'),
      join(ROOT, 'dist/apps/api/src/main.js'),
    ],
    {
      cwd: ROOT,
      env: { ...process.env, ...env },
      stdio: ['ignore', process.env.API_STDOUT ? openSync(process.env.API_STDOUT, 'w') : 'ignore', 'inherit'],
    },
  );
  return child;
}

function get(
  port: number,
  path: string,
): Promise<{ status: number; ttfbMs: number; totalMs: number; bytes: number; text: string }> {
  return new Promise((resolve, reject) => {
    const t0 = process.hrtime.bigint();
    const ms = () => Number(process.hrtime.bigint() - t0) / 1e6;
    let ttfbMs = -1;
    let bytes = 0;
    const keep: Buffer[] = [];
    const req = request({ host: '127.0.0.1', port, path }, (res) => {
      res.on('data', (c: Buffer) => {
        if (ttfbMs < 0) ttfbMs = ms();
        bytes += c.length;
        if (keep.length < 4) keep.push(c);
      });
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          ttfbMs,
          totalMs: ms(),
          bytes,
          text: Buffer.concat(keep).toString(),
        }),
      );
    });
    req.on('error', reject);
    req.end();
  });
}

const memory = (pid: number) => {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (k: string) => Number(new RegExp(`${k}:\\s+(\\d+) kB`).exec(status)?.[1] ?? 0);
  return { rssMb: Math.round(kb('VmRSS') / 1024), peakRssMb: Math.round(kb('VmHWM') / 1024) };
};

const lagMax = async (port: number) => {
  const r = await get(port, '/metrics');
  return Number(/^nodejs_eventloop_lag_max_seconds(?:\{[^}]*\})? ([0-9.e+-]+)$/m.exec(r.text)?.[1] ?? NaN);
};

/** The api's heap options, as `npm start` and the image run it (package.json `config.apiNodeOptions`). */
const API_NODE_OPTIONS = appNodeOptions('api').join(' ');

/** 4 readers of one list at once: per reader time to first byte and total; the api's memory and loop delay. */
async function readAtOnce(api: ChildProcess, port: number, flag: string, readers: number) {
  // a scrape resets the event-loop delay histogram: the next one reports the reads' maximum
  await get(port, '/metrics');
  const started = Date.now();
  const results = await Promise.all(
    Array.from({ length: readers }, () => get(port, `/api/admin/events/${flag}`)),
  );
  const wallMs = Date.now() - started;
  const maxEventLoopDelayMs = Math.round((await lagMax(port)) * 1000);
  for (const r of results)
    if (r.status !== 200 || !r.text.startsWith(`{"version":1,"toggleName":"${flag}","events":[{`))
      throw new Error(`unexpected answer ${r.status}: ${r.text.slice(0, 200)}`);
  return {
    readers,
    bytesPerReader: results[0].bytes,
    ttfbMs: results.map((r) => Math.round(r.ttfbMs)),
    totalMs: results.map((r) => Math.round(r.totalMs)),
    wallMs,
    apiPeakRssAfterMb: memory(api.pid!).peakRssMb,
    maxEventLoopDelayMs,
  };
}

async function largeList(events: number, readers: number): Promise<Record<string, unknown>> {
  const url = await freshDatabase('flaglens_bench_hardening');
  await loadFlag(url, 'tenth.flag', Math.round(events / 10), 0);
  await loadFlag(url, 'huge.flag', events, Math.round(events / 10));
  const port = await freePort();
  const api = startApi({ DATABASE_URL: url, PORT: String(port), FLAGLENS_AUTH: 'off', LOG_LEVEL: 'warn' });
  try {
    for (let i = 0; i < 240; i++) {
      if ((await get(port, '/health/live').catch(() => ({ status: 0 }))).status === 200) break;
      await new Promise((r) => setTimeout(r, 500));
    }
    // warm-up: the streaming path once on a shorter list (first-call compilation is not what is measured)
    await get(port, '/api/admin/events/warm.flag');
    const start = memory(api.pid!);
    // a tenth of the list, then the whole: a flat peak RSS says memory does not grow with the list
    const tenth = await readAtOnce(api, port, 'tenth.flag', readers);
    const whole = await readAtOnce(api, port, 'huge.flag', readers);
    const out = {
      events,
      apiNodeOptions: process.env.API_NODE_ARGS ?? API_NODE_OPTIONS,
      apiRssAtStartMb: start.rssMb,
      tenth: { events: Math.round(events / 10), ...tenth },
      whole: { events, ...whole },
    };
    console.log('large lists:', JSON.stringify(out, null, 2));
    return out;
  } finally {
    api.kill('SIGTERM');
  }
}

async function farPast(events: number): Promise<Record<string, unknown>> {
  const url = await freshDatabase('flaglens_bench_far_past');
  const t0 = Date.now();
  const loaded = await loadFarPastHistory(url, events);
  const report = async () => {
    const ds = new Database({
      url,
      max: 6,
      options: searchPathOption('flaglens_v1'),
    });
    try {
      const model = new InsightsReadModel(ds);
      const times: number[] = [];
      let weeks = 0;
      let bytes = 0;
      for (let i = 0; i < 3; i++) {
        const t = Date.now();
        const r = await model.report(new Date(NOW));
        times.push(Date.now() - t);
        weeks = r.flagTrends.length;
        bytes = JSON.stringify(r).length;
      }
      return { bestMs: Math.min(...times), runsMs: times, weeks, bytes };
    } finally {
      await ds.end();
    }
  };
  console.log(`loaded ${loaded} simulated events in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  const without = await report();
  await applyTagEventAt(url, '1000-01-01T00:00:00.000Z', 'ancient');
  const withFarPast = await report();
  const out = { events: loaded, withoutFarPastEvent: without, withEventDated1000: withFarPast };
  console.log('insights report:', JSON.stringify(out));
  return out;
}

async function main(): Promise<void> {
  const args = cliArgs();
  const events = Number(args.value('--events') ?? 1_000_000);
  const readers = Number(args.value('--readers') ?? 4);
  const insightsEvents = Number(args.value('--insights-events') ?? 200_000);
  // the api runs compiled: the build step (scripts/build.sh; waits for another build running, never races it)
  execSync('npm run -s build', { cwd: ROOT, stdio: 'inherit' });
  const result: Record<string, unknown> = { at: new Date().toISOString(), cores: cpus().length };
  result.largeList = await largeList(events, readers);
  if (insightsEvents > 0) result.insights = await farPast(insightsEvents);
  mkdirSync(join(ROOT, 'bench', 'results'), { recursive: true });
  const file = join(ROOT, 'bench', 'results', `hardening-${String(result.at).replace(/[:.]/g, '-')}.json`);
  writeFileSync(file, JSON.stringify(result, null, 2) + '\n');
  console.log(`wrote ${file}`);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
