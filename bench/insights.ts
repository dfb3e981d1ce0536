/**
 * The uncached instance insights over a 2-year × 200-project history (simulated, seed 42, through every
 * projection, 5,000 events per transaction, no Kafka): the stage `insights` of `npm run bench`, also run alone:
 *
 *   npx ts-node -r tsconfig-paths/register --transpile-only bench/insights.ts [--events N] [--runs N]
 *
 * After loading, the projector's store of the closed weeks runs once (timed), then the full report (no range, no
 * hidden project) is computed `runs` times each way, taking turns: from the stored weeks (what the api does) and
 * by the reference computation (every week computed: the report before stored weeks). "Uncached": each report is
 * the read model called directly, on a new pool (new connections), in this process, so no api cache is involved;
 * Postgres' own buffers are warm (the history was just loaded), as they are in a running instance. Both answers
 * are checked byte for byte. Besides wall time (noisy on a shared machine), the CPU of each report: this
 * process's and its Postgres backends' (from /proc, when Postgres runs here). Then one event dated 10 weeks back invalidates the weeks from there, and the
 * report (computing those weeks until the next store) is timed again.
 */
import { readFileSync } from 'node:fs';
import type { PoolClient } from 'pg';
import type { FlagEvent } from '@flaglens/contract';
import { Database, searchPathOption } from '@flaglens/persistence';
import {
  allProjections,
  applyProjections,
  appendEvents,
  InsightsReadModel,
  storeInsightsWeeks,
} from '@flaglens/projections';
import { generateHistory } from '@flaglens/testing/generate-history';
import { cliArgs } from '@flaglens/testing/support/cli-args';
import { median } from './stats';
import { dropDatabase, freshDatabase, withClient } from './bench-db';

/** "Now" of the history: its last event is at most this. */
export const FAR_PAST_NOW = '2026-11-22T09:01:00.000Z';

/** Appends events to the event log and applies every projection, in the caller's transaction. */
export async function applyEvents(c: PoolClient, batch: FlagEvent[]): Promise<void> {
  const stored = await appendEvents(
    c,
    batch.map((event) => ({ event, knownType: true, topic: null, partition: null, offset: null })),
  );
  await applyProjections(c, stored, allProjections());
}

/** One `tag-created` event dated `createdAt` (id 900,000,001), through every projection, in its own transaction. */
export async function applyTagEventAt(url: string, createdAt: string, value: string): Promise<void> {
  await withClient(url, async (c) => {
    await c.query('BEGIN');
    await applyEvents(c, [
      {
        id: 900_000_001,
        createdAt,
        type: 'tag-created',
        createdBy: 'admin',
        createdByUserId: 1,
        environment: null,
        project: null,
        featureName: null,
        data: { type: 'simple', value },
        preData: null,
        tags: null,
      },
    ]);
    await c.query('COMMIT');
  });
}

/**
 * The 2-year × 200-project history (seed 42, 50 flags per project, `events` events over 104 weeks ending at
 * FAR_PAST_NOW) loaded through every projection into `url`, 5,000 events per transaction, then VACUUM ANALYZE.
 * Returns the number of events.
 */
export async function loadFarPastHistory(url: string, events: number): Promise<number> {
  const history = generateHistory({
    seed: 42,
    projects: 200,
    flagsPerProject: 50,
    events,
    weeks: 104,
    end: FAR_PAST_NOW,
  });
  await withClient(url, async (c) => {
    for (let i = 0; i < history.length; i += 5000) {
      await c.query('BEGIN');
      await applyEvents(c, history.slice(i, i + 5000));
      await c.query('COMMIT');
    }
    await c.query('VACUUM ANALYZE');
  });
  return history.length;
}

export interface InsightsFigures {
  events: number;
  weeks: number;
  projectRows: number;
  bytes: number;
  /** the projector's store of every closed week (520 weeks at most), once */
  storeMs: number;
  /** full reports from the stored weeks: median and each run */
  storedMedianMs: number;
  storedRunsMs: number[];
  /** the reference computation (every week): median and each run */
  referenceMedianMs: number;
  referenceRunsMs: number[];
  /** median CPU per report, ms: this process (pg parsing, building the report) and the pool's Postgres backends */
  storedCpuMs: { node: number; db: number };
  referenceCpuMs: { node: number; db: number };
  /** the same answer byte for byte */
  identical: boolean;
  /** after an event dated 10 weeks back, before the next store: median, and the store that follows */
  afterLateEventMedianMs: number;
  restoreAfterLateEventMs: number;
}

/** The median of whole milliseconds, in whole milliseconds. */
const medianMs = (xs: number[]) => Math.round(median(xs));

const APP = 'flaglens-bench-insights';

/** CPU ns a process has run (/proc/<pid>/schedstat), 0 when unreadable (e.g. Postgres on another host). */
const cpuNs = (pid: number): number => {
  try {
    return Number(readFileSync(`/proc/${pid}/schedstat`, 'utf8').split(' ')[0]);
  } catch {
    return 0;
  }
};

/**
 * One uncached full report: a new pool, the read model called directly. Its wall time, the CPU of this process
 * (the JSON side) and of the Postgres backends of the pool (created for it: their whole CPU time, read from
 * /proc where Postgres runs on this machine), and its JSON. CPU figures hold on a loaded machine; wall time not.
 */
async function timedReport(
  url: string,
  storedWeeks: boolean,
): Promise<{ ms: number; nodeCpuMs: number; dbCpuMs: number; json: string }> {
  const ds = new Database({ url, max: 8, applicationName: APP, options: searchPathOption('flaglens_v1') });
  try {
    const model = new InsightsReadModel(ds, undefined, undefined, storedWeeks);
    const cpu0 = process.cpuUsage();
    const t = process.hrtime.bigint();
    const r = await model.report(new Date(FAR_PAST_NOW));
    const ms = Math.round(Number(process.hrtime.bigint() - t) / 1e6);
    const cpu = process.cpuUsage(cpu0);
    const pids = await ds.query<{ pid: number }>(
      `SELECT pid FROM pg_stat_activity WHERE application_name = $1 AND datname = current_database()`,
      [APP],
    );
    const dbCpuMs = Math.round(pids.reduce((n, p) => n + cpuNs(p.pid), 0) / 1e6);
    return { ms, nodeCpuMs: Math.round((cpu.user + cpu.system) / 1000), dbCpuMs, json: JSON.stringify(r) };
  } finally {
    await ds.end();
  }
}

async function store(url: string): Promise<number> {
  return withClient(url, async (c) => {
    const t = process.hrtime.bigint();
    // chunk after chunk, each its own transaction, as the projector's job stores them
    for (let weeks = 1; weeks > 0;) {
      await c.query('BEGIN');
      weeks = await storeInsightsWeeks(c, new Date(FAR_PAST_NOW));
      await c.query('COMMIT');
    }
    return Math.round(Number(process.hrtime.bigint() - t) / 1e6);
  });
}

/** The stage: loads the history into a scratch database, measures, drops the database. */
export async function insightsStage(o: { events: number; runs: number }): Promise<InsightsFigures> {
  const name = 'flaglens_bench_insights';
  const url = await freshDatabase(name);
  try {
    const t0 = Date.now();
    const events = await loadFarPastHistory(url, o.events);
    console.log(`[bench] insights: loaded ${events} events in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
    const storeMs = await store(url);
    // warm-up, one each way (first-call compilation of the node side is not what is measured)
    await timedReport(url, true);
    await timedReport(url, false);
    const storedRuns: Awaited<ReturnType<typeof timedReport>>[] = [];
    const referenceRuns: typeof storedRuns = [];
    let identical = true;
    for (let i = 0; i < o.runs; i++) {
      storedRuns.push(await timedReport(url, true));
      referenceRuns.push(await timedReport(url, false));
      identical &&= storedRuns[i].json === referenceRuns[i].json;
    }
    const stored = storedRuns[0];
    const storedRunsMs = storedRuns.map((x) => x.ms);
    const referenceRunsMs = referenceRuns.map((x) => x.ms);
    const cpuOf = (runs: typeof storedRuns) => ({
      node: medianMs(runs.map((x) => x.nodeCpuMs)),
      db: medianMs(runs.map((x) => x.dbCpuMs)),
    });
    const report = JSON.parse(stored.json) as { flagTrends: unknown[]; projectFlagTrends: unknown[] };
    // a late event 10 weeks back: the weeks from there are computed until the next store
    await applyTagEventAt(url, new Date(Date.parse(FAR_PAST_NOW) - 70 * 86_400_000).toISOString(), 'late');
    const late: number[] = [];
    for (let i = 0; i < o.runs; i++) late.push((await timedReport(url, true)).ms);
    const restoreAfterLateEventMs = await store(url);
    const out: InsightsFigures = {
      events,
      weeks: report.flagTrends.length,
      projectRows: report.projectFlagTrends.length,
      bytes: stored.json.length,
      storeMs,
      storedMedianMs: medianMs(storedRunsMs),
      storedRunsMs,
      referenceMedianMs: medianMs(referenceRunsMs),
      referenceRunsMs,
      storedCpuMs: cpuOf(storedRuns),
      referenceCpuMs: cpuOf(referenceRuns),
      identical,
      afterLateEventMedianMs: medianMs(late),
      restoreAfterLateEventMs,
    };
    console.log(`[bench] insights: ${JSON.stringify(out)}`);
    return out;
  } finally {
    await dropDatabase(name);
  }
}

if (require.main === module) {
  const args = cliArgs();
  insightsStage({
    events: Number(args.value('--events') ?? 200_000),
    runs: Number(args.value('--runs') ?? 7),
  }).catch((e) => {
    console.error(e);
    process.exit(1);
  });
}
