/*
 * The source connector's figures, re-runnable:
 *
 *   npm run bench:source                         # 1M-row backfill, then freshness in follow mode
 *   npm run bench:source -- --rows 200000 --samples 100
 *
 * Backfill: a scratch Unleash schema (Unleash 6.10.1's DDL) gets `--rows` events straight into its table
 * (one INSERT … SELECT generate_series), then the connector copies them into a fresh topic (`--once`, as
 * the CLI runs it, in this process): events/s from its start until Kafka acknowledged the last one.
 * Freshness: a fresh flaglens (projector + api processes) and the connector following; one event at a time is
 * committed into the scratch Unleash (a new flag each time) and the api is polled every 2 ms until it lists
 * it: commit → visible through the api, p50/p99 over `--samples`.
 * Writes bench/results/source-<UTC timestamp>.json.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Registry } from 'prom-client';
import { DbConnector, SourceMetrics } from '@flaglens/source';
import { createScratchUnleash, insertEvents } from '@flaglens/testing/scratch-unleash';
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
const log = (m: string) => process.stderr.write(`[bench:source] ${m}\n`);
const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)];
};

async function backfill(): Promise<Record<string, number>> {
  const unleash = await createScratchUnleash('bench');
  const db = await createTestDatabase('bench_source');
  const kafka = testKafka();
  const { topic, drop } = await createTestTopic(kafka, 'bench-source');
  try {
    let t = Date.now();
    await insertEvents(unleash.client, ROWS, { flags: 5000 });
    await unleash.client.query('VACUUM ANALYZE events');
    const [{ bytes }] = (
      await unleash.client.query<{ bytes: string }>(`SELECT pg_total_relation_size('events') AS bytes`)
    ).rows;
    log(
      `generated ${ROWS} rows in ${((Date.now() - t) / 1000).toFixed(1)} s (${(Number(bytes) / 1e6).toFixed(0)} MB with indexes)`,
    );
    t = Date.now();
    const summary = await new DbConnector({
      source: 'bench',
      unleashUrl: unleash.url,
      flaglensUrl: db.url,
      kafka,
      topic,
      once: true,
      metrics: new SourceMetrics(new Registry()),
      log: (level, m) => level !== 'info' && log(m),
    }).run();
    const seconds = (Date.now() - t) / 1000;
    const rate = Math.round(summary.produced / seconds);
    log(`backfill: ${summary.produced} events in ${seconds.toFixed(1)} s = ${rate} events/s`);
    return {
      rows: ROWS,
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
  const result = { at: new Date().toISOString(), backfill: await backfill(), freshness: await freshness() };
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
