/*
 * The source connector's figures, re-runnable:
 *
 *   npm run bench:source                         # 1M-row backfills from 6.10.1's and 8.2.0's schema, freshness
 *   npm run bench:source -- --rows 200000 --samples 100 --rounds 1
 *
 * Backfill, per Unleash release: a scratch Unleash database with that release's DDL (6.10.1, or 8.2.0 with
 * `events.group_type`/`group_id` and the `migrations` rows that make the connector see release 8) gets `--rows`
 * events straight into its table (one INSERT … SELECT generate_series; on 8.2.0 with the groups as 8.x writes
 * them), then the connector copies them into a fresh topic (`--once`, as the CLI runs it, in this process):
 * events/s from its start until Kafka acknowledged the last one. The releases take turns (6.10.1, 8.2.0, 6.10.1,
 * 8.2.0 … for `--rounds`, default 2) so that the machine's other load falls on both; each release's figure is the
 * median of its rounds, and the ratio 8.2.0 / 6.10.1 is of those medians. The run fails if the connector did not
 * tell the release it was given (8 on 8.2.0's, none on 6.10.1's, which has no `migrations`).
 * Freshness: a fresh flaglens (projector + api processes) and the connector following; one event at a time is
 * committed into the scratch Unleash (6.10.1's; a new flag each time) and the api is polled every 2 ms until it
 * lists it: commit → visible through the api, p50/p99 over `--samples`.
 * Writes bench/results/source-<UTC timestamp>.json.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Registry } from 'prom-client';
import { DbConnector, SourceMetrics } from '@flaglens/source';
import {
  createScratchUnleash,
  insertEvents,
  SCRATCH_RELEASES,
  type ScratchRelease,
} from '@flaglens/testing/scratch-unleash';
import { createTestDatabase } from '@flaglens/testing/support/test-database';
import { createTestTopic, testKafka } from '@flaglens/testing/support/test-kafka';
import { createToken } from '@flaglens/testing/support/cli';
import { httpGet } from '@flaglens/testing/support/http';
import { startStack } from '@flaglens/testing/support/stack';
import { waitFor } from '@flaglens/testing/support/wait-for';

const arg = (name: string, dflt: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : dflt;
};
const ROWS = arg('rows', 1_000_000);
const SAMPLES = arg('samples', 200);
const ROUNDS = arg('rounds', 2);
const log = (m: string) => process.stderr.write(`[bench:source] ${m}\n`);
const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)];
};
const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
/** The release line the connector must tell from each scratch database (null: none, no `migrations`). */
const EXPECTED_LINE: Record<ScratchRelease, string | null> = { '6.10.1': null, '8.2.0': '8' };

interface BackfillRun {
  release: ScratchRelease;
  round: number;
  /** The release line the connector told from the database's `migrations` (null: none). */
  releaseSeen: string | null;
  rows: number;
  /** Rows with a group_type/group_id (8.2.0's table). */
  groupedRows: number;
  tableMb: number;
  produced: number;
  seconds: number;
  eventsPerSec: number;
}

async function backfill(release: ScratchRelease, round: number): Promise<BackfillRun> {
  const unleash = await createScratchUnleash('bench', undefined, { release });
  const db = await createTestDatabase('bench_source');
  const kafka = testKafka();
  const { topic, drop } = await createTestTopic(kafka, 'bench-source');
  try {
    let t = Date.now();
    await insertEvents(unleash.client, ROWS, { flags: 5000 });
    await unleash.client.query('VACUUM ANALYZE events');
    const [{ bytes, grouped }] = (
      await unleash.client.query<{ bytes: string; grouped: string }>(
        `SELECT pg_total_relation_size('events') AS bytes,
                ${release === '6.10.1' ? '0' : '(SELECT count(*) FROM events WHERE group_id IS NOT NULL)'} AS grouped`,
      )
    ).rows;
    log(
      `${release} round ${round}: generated ${ROWS} rows in ${((Date.now() - t) / 1000).toFixed(1)} s (${(Number(bytes) / 1e6).toFixed(0)} MB with indexes, ${grouped} with a group)`,
    );
    let releaseSeen: string | null = null;
    t = Date.now();
    const summary = await new DbConnector({
      source: 'bench',
      unleashUrl: unleash.url,
      flaglensUrl: db.url,
      kafka,
      topic,
      once: true,
      metrics: new SourceMetrics(new Registry()),
      log: (level, m) => {
        const seen = /^Unleash release (\S+) /.exec(m);
        if (seen) releaseSeen = seen[1];
        else if (level !== 'info') log(m);
      },
    }).run();
    const seconds = (Date.now() - t) / 1000;
    const rate = Math.round(summary.produced / seconds);
    log(
      `${release} round ${round}: backfill of ${summary.produced} events in ${seconds.toFixed(1)} s = ${rate} events/s`,
    );
    if (releaseSeen !== EXPECTED_LINE[release])
      throw new Error(
        `the connector told release ${releaseSeen ?? 'none'} from ${release}'s schema, not ${EXPECTED_LINE[release] ?? 'none'}`,
      );
    if (summary.produced !== ROWS) throw new Error(`${summary.produced} events produced of ${ROWS}`);
    return {
      release,
      round,
      releaseSeen,
      rows: ROWS,
      groupedRows: Number(grouped),
      tableMb: Math.round(Number(bytes) / 1e6),
      produced: summary.produced,
      seconds: Number(seconds.toFixed(2)),
      eventsPerSec: rate,
    };
  } finally {
    await drop();
    await db.drop();
    await unleash.drop();
  }
}

/** The releases' backfills taking turns, `ROUNDS` each; the median of each and the ratio 8.2.0 / 6.10.1. */
async function backfills() {
  const runs: BackfillRun[] = [];
  for (let round = 1; round <= ROUNDS; round++)
    for (const release of SCRATCH_RELEASES) runs.push(await backfill(release, round));
  const releases = Object.fromEntries(
    SCRATCH_RELEASES.map((release) => {
      const mine = runs.filter((r) => r.release === release);
      return [
        release,
        {
          releaseSeen: mine[0].releaseSeen,
          eventsPerSec: Math.round(median(mine.map((r) => r.eventsPerSec))),
          seconds: Number(median(mine.map((r) => r.seconds)).toFixed(2)),
          rounds: mine.map((r) => r.eventsPerSec),
        },
      ];
    }),
  );
  const ratio = Number((releases['8.2.0'].eventsPerSec / releases['6.10.1'].eventsPerSec).toFixed(3));
  log(
    `backfill: 6.10.1 ${releases['6.10.1'].eventsPerSec} events/s, 8.2.0 ${releases['8.2.0'].eventsPerSec} events/s (medians of ${ROUNDS}), ratio 8.2.0/6.10.1 ${ratio}`,
  );
  return { rows: ROWS, rounds: ROUNDS, releases, ratio, runs };
}

async function freshness(): Promise<Record<string, number>> {
  const unleash = await createScratchUnleash('bench_fresh');
  const stack = await startStack('bench_source_fresh');
  const abort = new AbortController();
  let run: Promise<unknown> | undefined;
  try {
    await insertEvents(unleash.client, 1000, { flags: 100 });
    run = new DbConnector({
      source: 'bench',
      unleashUrl: unleash.url,
      flaglensUrl: stack.db.url,
      kafka: stack.kafka,
      topic: stack.topic,
      once: false,
      log: (level, m) => level !== 'info' && log(m),
      signal: abort.signal,
    }).run();
    await stack.waitForEvents(1000);
    const token = await createToken(stack.env, '1');
    const latencies: number[] = [];
    for (let i = 0; i < SAMPLES; i++) {
      const flag = `fresh-${i}`;
      await unleash.client.query(
        `INSERT INTO events (type, created_by, created_by_user_id, project, feature_name, data)
         VALUES ('feature-created', 'admin', 1, 'default', $1, json_build_object('name', $1::text, 'type', 'release', 'project', 'default'))`,
        [flag],
      );
      const committed = Date.now();
      await waitFor(
        `${flag} visible`,
        async () =>
          (
            (await httpGet(stack.port, `/api/admin/events/${flag}`, { authorization: token })).json() as {
              totalEvents: number;
            }
          ).totalEvents === 1,
        { intervalMs: 2, timeoutMs: 10_000 },
      );
      latencies.push(Date.now() - committed);
      await new Promise((r) => setTimeout(r, 20 + ((i * 53) % 80)));
    }
    const r = {
      samples: SAMPLES,
      p50Ms: pct(latencies, 50),
      p99Ms: pct(latencies, 99),
      maxMs: Math.max(...latencies),
    };
    log(
      `freshness (commit in Unleash -> visible through the api): p50 ${r.p50Ms} ms, p99 ${r.p99Ms} ms, max ${r.maxMs} ms over ${SAMPLES}`,
    );
    return r;
  } finally {
    abort.abort();
    await run?.catch(() => undefined);
    await stack.stop();
    await unleash.drop();
  }
}

async function main(): Promise<void> {
  const result = { at: new Date().toISOString(), backfill: await backfills(), freshness: await freshness() };
  const dir = join(__dirname, 'results');
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `source-${result.at.replace(/[:.]/g, '-')}.json`);
  writeFileSync(file, JSON.stringify(result, null, 2) + '\n');
  process.stdout.write(JSON.stringify(result) + '\n');
  log(`written ${file}`);
}

main().catch((e) => {
  log(`failed: ${(e as Error).message}`);
  process.exit(1);
});
