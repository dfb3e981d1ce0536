/*
 * Reads as of an instant (docs/design.md, "Reads as of an instant"): what a project's overview and a user's
 * profile cost with `at=`, at random instants of a history whose project has many events. The history is fed
 * into a fresh database as the projector applies it (the event log, every projection), then the reads run
 * through `readAsOf` (from the newest usable checkpoint, the events after it replayed into the connection's
 * fresh temporary tables, only the projections each read declares it needs), one after another on one
 * connection, as the api's; the overview once more replaying every projection (`overviewEveryProjection`:
 * what declaring its reads saves, in the same run). The figures are printed: per
 * read its total, the log read (with the checkpoint's choice), the checkpoint's load, the replay and the events
 * replayed; the checkpoints' making and storage; a flag's events as of an instant; each read at the newest
 * event, from the version's own tables and replayed, in turns.
 *
 *   npm run bench:as-of -- [--events N] [--reads N] [--checkpoint-events N (0: none)] [--projects N]
 *
 * Writes bench/results/as-of-every-<checkpoint events>-<UTC timestamp>.json (the figures above and the commit they were taken at).
 */
import 'reflect-metadata';
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Database, searchPathOption, type RowQueryable } from '@flaglens/persistence';
import {
  checkpointStorage,
  EventLogReadModel,
  IDENTITY_READS,
  IdentityReadModel,
  makeCheckpoint,
  OVERVIEW_AS_OF_READS,
  OverviewReadModel,
  readAsOf,
  READS_ANYTHING,
  tidyAsOf,
} from '@flaglens/projections';
import { generateHistory } from '@flaglens/testing/generate-history';
import { feedProjections } from '@flaglens/testing/support/feed-projections';
import { createTestDatabase } from '@flaglens/testing/support/test-database';
import { cliArgs } from '@flaglens/testing/support/cli-args';
import { median } from './stats';

const args = cliArgs();
const EVENTS = Number(args.value('--events') ?? 100_000);
const READS = Number(args.value('--reads') ?? 10);
const EVERY = Number(args.value('--checkpoint-events') ?? 500);
/** projects of 200 flags each: the state a checkpoint holds grows with them */
const PROJECTS = Number(args.value('--projects') ?? 1);
const END = '2026-11-22T09:01:00.000Z';

/** A deterministic stream of numbers in [0, 1). */
function prng(seed: number): () => number {
  let s = seed >>> 0;
  return () => (s = (Math.imul(s, 1_664_525) + 1_013_904_223) >>> 0) / 2 ** 32;
}

const pct = (xs: number[], p: number): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)];
};

async function main(): Promise<void> {
  // `--projects` of 200 flags each (one by default: every event is that project's or the instance's)
  const history = generateHistory({
    seed: 7,
    projects: PROJECTS,
    flagsPerProject: 200,
    events: EVENTS,
    weeks: 52,
    end: END,
    rich: true,
  });
  const project = history.find((e) => e.project !== null && e.project !== 'default')?.project ?? 'default';
  const db = await createTestDatabase('asof_bench');
  const ds = new Database({ url: db.url, max: 2, options: searchPathOption('flaglens_v1') });
  let reader: Database | undefined;
  try {
    const f0 = performance.now();
    const batches = [];
    for (let i = 0; i < history.length; i += 2000) batches.push(history.slice(i, i + 2000));
    await feedProjections(ds, batches);
    const [{ n, p }] = await ds.query<{ n: string; p: string }>(
      `SELECT count(*) AS n, count(*) FILTER (WHERE project = $1) AS p FROM event_log`,
      [project],
    );
    console.log(
      `fed ${n} events (${p} of project ${project}) in ${((performance.now() - f0) / 1000).toFixed(1)} s`,
    );
    // as autovacuum leaves a database at rest: statistics for the planner, a visibility map for index-only
    // scans (a checkpoint's check counts the log's events up to its instant)
    await ds.query('VACUUM ANALYZE');
    // the checkpoints, as the projector makes them
    const k0 = performance.now();
    // (a connection of its own keeping its fresh tables from one to the next, as the projector's: closed after)
    const maker = await ds.connect();
    let made = 0;
    try {
      while (EVERY > 0 && (await makeCheckpoint(maker, EVERY, { keep: true }))) made++;
    } finally {
      maker.release(true);
    }
    const makeMs = performance.now() - k0;
    const storageOf = await ds.connect();
    const storage = await checkpointStorage(storageOf).finally(() => storageOf.release());
    const [{ log }] = await ds.query<{ log: string }>(
      `SELECT pg_total_relation_size('flaglens_v1.event_log')::text AS log`,
    );
    // what a full checkpoint holds, by table (the newest full one): the state each read loads
    const byTable =
      EVERY > 0
        ? await ds.query<{ tbl: string; kb: number }>(
            `SELECT c.tbl, length(c.added) / 1024 AS kb
               FROM flaglens_v1_as_of.checkpoint_changes c
              WHERE c.id = (SELECT max(id) FROM flaglens_v1_as_of.checkpoints WHERE base = id)
              ORDER BY length(c.added) DESC`,
          )
        : [];
    console.log(
      `the newest full checkpoint, by table (text kB): ${byTable.map((r) => `${r.tbl} ${r.kb}`).join(', ')}`,
    );
    console.log(
      `${made} checkpoints (every ${EVERY} events) made in ${(makeMs / 1000).toFixed(1)} s: ` +
        `${(storage.bytes / 1e6).toFixed(1)} MB, ${(((storage.bytes / Number(n)) * 1e6) / 1e9).toFixed(2)} GB per ` +
        `million events (the event log: ${(Number(log) / 1e6).toFixed(0)} MB)`,
    );
    const first = Date.parse(history[0].createdAt);
    const span = Date.parse(END) - first;
    const rnd = prng(11);
    // the reads on a connection of their own, as the api's (the maker's connection made and dropped its
    // temporary tables once per checkpoint)
    reader = new Database({ url: db.url, max: 1, options: searchPathOption('flaglens_v1') });
    const c = await reader.connect();
    const result: Record<string, unknown> = {
      at: new Date().toISOString(),
      commit: execFileSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim(),
      events: Number(n),
      projects: PROJECTS,
      projectEvents: Number(p),
      reads: READS,
      checkpoints: {
        every: EVERY,
        made,
        makeSeconds: Math.round(makeMs / 100) / 10,
        bytes: storage.bytes,
        bytesPerMillionEvents: Math.round((storage.bytes / Number(n)) * 1e6),
        eventLogBytes: Number(log),
        fullKilobytesByTable: Object.fromEntries(byTable.map((r) => [r.tbl, Number(r.kb)])),
      },
    };
    try {
      // a connection's first read makes its fresh tables (kept for the next reads): timed apart
      const w0 = performance.now();
      await readAsOf(c, '2000-01-01T00:00:00.000Z', async () => null, { keep: true });
      result.firstReadOfAConnectionMs = Math.round(performance.now() - w0);
      console.log(`a connection's first read (its fresh tables made): ${result.firstReadOfAConnectionMs} ms`);
      const tidies: number[] = [];
      // each kind of read at the same instants: half uniform in time, half at a random event's (uniform in events)
      const instants = Array.from({ length: READS }, (_, i) =>
        i % 2 === 0
          ? new Date(first + Math.floor(rnd() * span)).toISOString()
          : history[Math.floor(rnd() * history.length)].createdAt,
      );
      // the overview and the profile as the api declares their reads; the overview once more declaring
      // everything (every projection replayed)
      const overview = (q: RowQueryable, at: string) =>
        new OverviewReadModel(q).snapshot(project, new Date(at));
      const kinds = {
        overview: { reads: OVERVIEW_AS_OF_READS, read: overview },
        profile: { reads: [IDENTITY_READS], read: (q: RowQueryable) => new IdentityReadModel(q).profile(2) },
        overviewEveryProjection: { reads: [READS_ANYTHING], read: overview },
      };
      for (const [kind, { reads, read }] of Object.entries(kinds)) {
        const totals: number[] = [];
        const rows: string[] = [];
        for (const at of instants) {
          const t0 = performance.now();
          const { replay } = await readAsOf<unknown>(c, at, (q) => read(q, at), { keep: true, reads });
          const total = performance.now() - t0;
          totals.push(total);
          // as the api: after the answer, off the read's path
          const v0 = performance.now();
          await tidyAsOf(c);
          tidies.push(performance.now() - v0);
          rows.push(
            `  at ${at}: ${total.toFixed(0).padStart(6)} ms (log read ${replay.loadMs.toFixed(0)} ms, ` +
              `checkpoint ${replay.checkpoint ?? 'none'} (+${replay.amends} of changes) loaded ${replay.freshMs.toFixed(0)} ms, ` +
              `replay of ${replay.events} events ` +
              `${replay.replayMs.toFixed(0)} ms = ` +
              `${((1000 * replay.replayMs) / Math.max(1, replay.events)).toFixed(1)} µs/event, ` +
              `read ${replay.readMs.toFixed(0)} ms)`,
          );
        }
        console.log(
          `${kind} as of ${READS} random instants: p50 ${median(totals).toFixed(0)} ms, ` +
            `p99 ${pct(totals, 99).toFixed(0)} ms, max ${Math.max(...totals).toFixed(0)} ms`,
        );
        rows.forEach((r) => console.log(r));
        result[kind] = {
          p50Ms: Math.round(median(totals)),
          p99Ms: Math.round(pct(totals, 99)),
          maxMs: Math.round(Math.max(...totals)),
        };
      }
      console.log(
        `tidying a connection after a read (off the read's path): median ${median(tidies).toFixed(0)} ms, ` +
          `max ${Math.max(...tidies).toFixed(0)} ms`,
      );
      result.tidyAfterReadMs = { p50: Math.round(median(tidies)), max: Math.round(Math.max(...tidies)) };
      // a flag's events: read from the log itself (created_at up to the instant), no replay
      const flags = [...new Set(history.map((e) => e.featureName).filter((f): f is string => !!f))];
      const events = new EventLogReadModel({ pool: () => ds.pool });
      const flagTimes: number[] = [];
      for (let i = 0; i < READS; i++) {
        const at = new Date(first + Math.floor(rnd() * span)).toISOString();
        const t0 = performance.now();
        await events.eventsOfFlag(flags[Math.floor(rnd() * flags.length)], [], at);
        flagTimes.push(performance.now() - t0);
      }
      console.log(
        `a flag's events as of ${READS} random instants: p50 ${median(flagTimes).toFixed(1)} ms, ` +
          `p99 ${pct(flagTimes, 99).toFixed(1)} ms`,
      );
      result.flagEvents = {
        p50Ms: Math.round(median(flagTimes) * 10) / 10,
        p99Ms: Math.round(pct(flagTimes, 99) * 10) / 10,
      };
      // at the newest event: the version's own tables (no event after the instant), against the same reads
      // replayed (`live: false`, from the newest usable checkpoint), in turns
      const newest = new Date(
        history.reduce((max, e) => Math.max(max, Date.parse(e.createdAt)), -Infinity),
      ).toISOString();
      const atNewest: Record<string, { liveP50Ms: number; replayedP50Ms: number; speedup: number }> = {};
      for (const [kind, { reads, read }] of Object.entries(kinds)) {
        const times = { live: [] as number[], replayed: [] as number[] };
        for (let i = 0; i < READS; i++)
          for (const live of [true, false]) {
            const t0 = performance.now();
            const { replay } = await readAsOf<unknown>(c, newest, (q) => read(q, newest), {
              keep: true,
              reads,
              live,
            });
            (live ? times.live : times.replayed).push(performance.now() - t0);
            if (replay.live !== live)
              throw new Error(`${kind} at the newest event: live ${replay.live}, asked ${live}`);
            await tidyAsOf(c);
          }
        const [l, r] = [median(times.live), median(times.replayed)];
        atNewest[kind] = {
          liveP50Ms: Math.round(l * 10) / 10,
          replayedP50Ms: Math.round(r * 10) / 10,
          speedup: Math.round((r / l) * 10) / 10,
        };
        console.log(
          `${kind} at the newest event (${newest}), median of ${READS}: the version's tables ${l.toFixed(1)} ms, ` +
            `replayed ${r.toFixed(1)} ms (${(r / l).toFixed(1)}×)`,
        );
      }
      result.atNewestEvent = { at: newest, ...atNewest };
      // the fixed cost: before the first event, nothing to replay
      const empty: number[] = [];
      for (let i = 0; i < 5; i++) {
        const t0 = performance.now();
        await readAsOf(
          c,
          '2000-01-01T00:00:00.000Z',
          (q) => new OverviewReadModel(q).snapshot(project, new Date(0)),
          { keep: true },
        );
        empty.push(performance.now() - t0);
        await tidyAsOf(c);
      }
      console.log(
        `overview before the first event (nothing to load or replay): median of 5 ${median(empty).toFixed(0)} ms`,
      );
      result.beforeFirstEventMs = Math.round(median(empty));
      const dir = join(__dirname, 'results');
      mkdirSync(dir, { recursive: true });
      const file = join(dir, `as-of-every-${EVERY}-${String(result.at).replace(/[:.]/g, '-')}.json`);
      writeFileSync(file, JSON.stringify(result, null, 2) + '\n');
      console.log(`written ${file}`);
    } finally {
      // its fresh tables would shadow the version's: not back to the pool
      c.release(true);
    }
  } finally {
    await reader?.end();
    await ds.end();
    await db.drop();
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
