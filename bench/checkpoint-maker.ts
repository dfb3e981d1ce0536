/*
 * npm run bench:checkpoint-maker -- --database NAME [--redo EVENTS] [--every E]
 *
 * The as-of checkpoints' maker (libs/projections/src/as-of.ts, `makeCheckpoint`) on a database a run left in
 * place (`npm run bench:scale -- --events N --keep`): its active version's checkpoints of the last EVENTS events
 * they cover (100,000 unless told) are dropped and made again, twice, from the same checkpoint, on one connection
 * that keeps its tables as the projector's does:
 *  - `every`: a checkpoint every E events (500 unless told, the default of AS_OF_CHECKPOINT_EVENTS) all the way;
 *  - `catch-up`: as the projector makes them, AS_OF_CATCH_UP events at a time while far behind the log, then E.
 * For each: the events covered per second of the maker's time, the checkpoints made, and the statements that
 * took the most of it (their time summed, from the client, each one's text cut short), and the process's
 * JavaScript heap at its highest (sampled every 20 ms; the projector gives the maker a 160 MB old space). The
 * first checkpoint of each loads the newest one left, paid once per maker: `restEventsPerSecond` leaves it out.
 * Nothing else should run meanwhile.
 * Writes bench/results/checkpoint-maker-<UTC timestamp>.json.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Pool, type PoolClient } from 'pg';
import { AS_OF_CATCH_UP, checkpointSchema, makeCheckpoint } from '@flaglens/projections';
import { cliArgs } from '@flaglens/testing/support/cli-args';
import { activeSchema } from '@flaglens/testing/support/test-database';

const cli = cliArgs(process.argv.slice(2));
const DATABASE = cli.value('--database');
const REDO = Number(cli.value('--redo') ?? 100_000);
const EVERY = Number(cli.value('--every') ?? 500);
if (!DATABASE || !/^[a-z_][a-z0-9_]*$/.test(DATABASE)) {
  console.error('--database NAME: the database a `bench:scale --keep` run left (its name, as it printed it)');
  process.exit(2);
}
for (const [flag, n] of [
  ['--redo', REDO],
  ['--every', EVERY],
] as const)
  if (!Number.isInteger(n) || n < 1) {
    console.error(`${flag} takes a whole number > 0`);
    process.exit(2);
  }

interface Arm {
  name: string;
  catchUp: number;
  checkpoints: number;
  events: number;
  firstMs: number;
  restMs: number;
  eventsPerSecond: number;
  restEventsPerSecond: number;
  peakHeapMB: number;
  statements: { ms: number; calls: number; sql: string }[];
}

/** The client's statements timed by their text (a COPY's stream is passed through untimed). */
function timed(c: PoolClient, times: Map<string, { ms: number; calls: number }>): void {
  const query = c.query.bind(c) as (...a: unknown[]) => unknown;
  (c as unknown as { query: (...a: unknown[]) => unknown }).query = (...a: unknown[]) => {
    const t = performance.now();
    const r = query(...a) as Promise<unknown> | undefined;
    if (!r || typeof (r as Promise<unknown>).then !== 'function') return r;
    const q = a[0] as string | { text: string };
    const sql = (typeof q === 'string' ? q : q.text).replace(/\s+/g, ' ').slice(0, 100);
    return r.finally(() => {
      const e = times.get(sql) ?? { ms: 0, calls: 0 };
      e.ms += performance.now() - t;
      e.calls++;
      times.set(sql, e);
    });
  };
}

async function arm(pool: Pool, schema: string, name: string, catchUp: number): Promise<Arm> {
  const c = await pool.connect();
  try {
    await c.query(`SET search_path TO ${schema}, public`);
    const cps = checkpointSchema(schema);
    await c.query(
      `DELETE FROM ${cps}.checkpoints WHERE events > (SELECT max(events) - $1 FROM ${cps}.checkpoints)`,
      [REDO],
    );
    const [{ from }] = (
      await c.query<{ from: string }>(`SELECT COALESCE(max(events), 0)::text AS from FROM ${cps}.checkpoints`)
    ).rows;
    const times = new Map<string, { ms: number; calls: number }>();
    timed(c, times);
    let made = 0;
    let events = Number(from);
    let firstMs = 0;
    let firstEvents = 0;
    // the maker's JavaScript heap at its highest (the projector runs it within a 160 MB old space)
    let peakHeap = process.memoryUsage().heapUsed;
    const sample = setInterval(() => (peakHeap = Math.max(peakHeap, process.memoryUsage().heapUsed)), 20);
    const t0 = performance.now();
    for (;;) {
      const m = await makeCheckpoint(c, EVERY, { keep: true, catchUp });
      if (!m) break;
      if (made === 0) [firstMs, firstEvents] = [performance.now() - t0, m.events];
      made++;
      if (made % 10 === 0) console.log(`[maker] ${name}: ${made} checkpoints, ${m.events} events covered`);
      events = m.events;
    }
    clearInterval(sample);
    const restMs = performance.now() - t0 - firstMs;
    const covered = events - Number(from);
    return {
      name,
      catchUp,
      checkpoints: made,
      events: covered,
      firstMs: Math.round(firstMs),
      restMs: Math.round(restMs),
      eventsPerSecond: Math.round(covered / ((firstMs + restMs) / 1000)),
      restEventsPerSecond: Math.round((events - firstEvents) / (restMs / 1000)),
      peakHeapMB: Math.round(peakHeap / 1e5) / 10,
      statements: [...times.entries()]
        .sort((a, b) => b[1].ms - a[1].ms)
        .slice(0, 15)
        .map(([sql, v]) => ({ ms: Math.round(v.ms), calls: v.calls, sql })),
    };
  } finally {
    // its session's tables are dropped with it
    c.release(true);
  }
}

async function main(): Promise<void> {
  const pool = new Pool({ connectionString: `postgres://postgres@127.0.0.1:5432/${DATABASE}`, max: 1 });
  try {
    const c = await pool.connect();
    const schema = await activeSchema(c);
    c.release();
    const arms: Arm[] = [];
    for (const [name, catchUp] of [
      ['every', EVERY],
      ['catch-up', AS_OF_CATCH_UP],
    ] as const) {
      const a = await arm(pool, schema, name, catchUp);
      console.log(
        `[maker] ${name}: ${a.events} events in ${a.checkpoints} checkpoints, ${a.eventsPerSecond} events/s ` +
          `(the first ${a.firstMs} ms; the rest ${a.restMs} ms, ${a.restEventsPerSecond} events/s); ` +
          `heap at most ${a.peakHeapMB} MB`,
      );
      arms.push(a);
    }
    const result = {
      startedAt: new Date().toISOString(),
      commit: execFileSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim(),
      database: DATABASE,
      redo: REDO,
      every: EVERY,
      arms,
      catchUpSpeedup: Math.round((arms[1].restEventsPerSecond / arms[0].restEventsPerSecond) * 100) / 100,
    };
    const dir = join(__dirname, 'results');
    mkdirSync(dir, { recursive: true });
    const file = join(dir, `checkpoint-maker-${result.startedAt.replace(/[:.]/g, '-')}.json`);
    writeFileSync(file, JSON.stringify(result, null, 2) + '\n');
    console.log(`[maker] catch-up / every (after the first): ${result.catchUpSpeedup}; wrote ${file}`);
  } finally {
    await pool.end();
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
