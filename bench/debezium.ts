/*
 * Events/s from Unleash's `events` table to flaglens's projections, through Kafka Connect + Debezium against
 * through our connector, in the same run (docs/debezium.md):
 *
 *   npm run bench:debezium                  # 50,000 events each way
 *   npm run bench:debezium -- --rows 20000
 *
 * A Postgres cluster of our own with wal_level=logical under .run/ holds two scratch Unleash databases
 * (Unleash 6.10.1's DDL). Each path runs live, caught up on an empty table first (one warm-up event through to
 * the projection):
 * - Debezium: Kafka Connect (distributed) + the shipped connector config streaming the table, `source debezium`
 *   following (repartition), a flaglens (projector + api processes) with EVENT_FORMAT=debezium;
 * - ours: the DbConnector of `source unleash --database-url` following (in this process), a flaglens with
 *   EVENT_FORMAT=unleash.
 * Then `--rows` events are committed into the table in one statement (Unleash's ids, realistic payloads), and
 * the clock runs from that commit until the projection's event log holds all of them.
 * The two paths run one after the other (the machine is small), the Debezium one first.
 * Writes bench/results/debezium-<UTC timestamp>.json.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DbConnector } from '@flaglens/source';
import { createScratchUnleash, insertEvents } from '@flaglens/testing/scratch-unleash';
import { spawnCli } from '@flaglens/testing/support/cli';
import { fetchConnectJars } from '@flaglens/testing/support/kafka-connect';
import { startStack, type Stack } from '@flaglens/testing/support/stack';
import { BROKERS, testKafka } from '@flaglens/testing/support/test-kafka';
import { waitFor } from '@flaglens/testing/support/wait-for';
import { startDebezium, startLogicalPostgres } from '../conformance/debezium-path';

const arg = (name: string, dflt: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : dflt;
};
const ROWS = arg('rows', 50_000);
const ONLY = process.argv.includes('--only') ? process.argv[process.argv.indexOf('--only') + 1] : null;
const log = (m: string) => process.stderr.write(`[bench:debezium] ${m}\n`);

const count = async (stack: Stack) =>
  Number((await stack.db.query<{ n: string }>('SELECT count(*) AS n FROM event_log'))[0].n);

async function main(): Promise<void> {
  fetchConnectJars(log);
  const kafka = testKafka();
  const pg = await startLogicalPostgres(join(__dirname, '..', '.run', 'bench-debezium-pg'));
  const result: Record<string, unknown> = { at: new Date().toISOString(), rows: ROWS };
  try {
    // 1. Debezium
    if (ONLY !== 'ours') {
      const unleash = await createScratchUnleash('bench_dbz', pg.url);
      const dbz = await startDebezium(kafka, BROKERS, pg, unleash.url, 'bench');
      const stack = await startStack('bench_dbz', { EVENT_FORMAT: 'debezium' });
      const relay = spawnCli({ ...stack.env, LOG_LEVEL: 'warn' }, [
        'source',
        'debezium',
        '--from',
        dbz.topic,
      ]);
      try {
        await waitFor(
          "Debezium's topic",
          async () => {
            const admin = kafka.admin();
            await admin.connect();
            const topics = await admin.listTopics();
            await admin.disconnect();
            if (!topics.includes(dbz.topic))
              await insertEvents(unleash.client, 1, { flags: 1, prefix: 'probe' });
            return topics.includes(dbz.topic);
          },
          { timeoutMs: 120_000, intervalMs: 1000 },
        );
        result.debezium = await measureFrom(stack, unleash).catch((e) => {
          throw new Error(`${(e as Error).message}\nrelay: ${relay.output.join('').slice(-3000)}`);
        });
        // where the time went: the last change Debezium wrote to its topic, the last one the relay wrote to ours
        const { t0, ...figures } = result.debezium as Awaited<ReturnType<typeof measureFrom>>;
        result.debezium = {
          ...figures,
          stages: {
            debeziumTopicDoneSeconds: since(t0, await lastSent(kafka, dbz.topic)),
            relayDoneSeconds: since(t0, await lastSent(kafka, stack.topic)),
            projectedSeconds: figures.seconds,
          },
        };
        log(`Debezium: ${JSON.stringify(result.debezium)}`);
      } finally {
        relay.child.kill('SIGTERM');
        await relay.exited;
        await stack.stop();
        await dbz.stop();
        await unleash.drop();
      }
    }
    // 2. our connector
    if (ONLY !== 'debezium') {
      const unleash = await createScratchUnleash('bench_ours', pg.url);
      const stack = await startStack('bench_ours');
      // in this process, following (as `source unleash` runs it; its HTTP side is not needed here)
      const abort = new AbortController();
      const running = new DbConnector({
        source: 'bench',
        unleashUrl: unleash.url,
        flaglensUrl: stack.env.DATABASE_URL,
        kafka,
        topic: stack.topic,
        once: false,
        log: (level, m) => level !== 'info' && log(m),
        signal: abort.signal,
      }).run();
      try {
        const { t0, ...figures } = await measureFrom(stack, unleash);
        result.connector = {
          ...figures,
          stages: {
            topicDoneSeconds: since(t0, await lastSent(kafka, stack.topic)),
            projectedSeconds: figures.seconds,
          },
        };
        log(`our connector: ${JSON.stringify(result.connector)}`);
      } finally {
        abort.abort();
        await running.catch(() => undefined);
        await stack.stop();
        await unleash.drop();
      }
    }
  } finally {
    pg.stop();
  }
  const dir = join(__dirname, 'results');
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `debezium-${String(result.at).replace(/[:.]/g, '-')}.json`);
  writeFileSync(file, JSON.stringify(result, null, 2) + '\n');
  log(`wrote ${file}`);
  process.stdout.write(JSON.stringify(result, null, 2) + '\n');
}

const since = (t0: number, t: number) => Number(((t - t0) / 1000).toFixed(2));

/** The newest CreateTime (ms) of a topic's messages: when its producer sent the last one. */
async function lastSent(kafka: ReturnType<typeof testKafka>, topic: string): Promise<number> {
  const admin = kafka.admin();
  await admin.connect();
  const ends = await admin.fetchTopicOffsets(topic);
  await admin.disconnect();
  const left = new Map(ends.filter((p) => Number(p.high) > 0).map((p) => [p.partition, Number(p.high)]));
  let newest = 0;
  const consumer = kafka.consumer({ groupId: `bench-last-${topic}-${Date.now()}` });
  await consumer.connect();
  await consumer.subscribe({ topic, fromBeginning: true });
  await consumer.run({
    eachBatch: async ({ batch }) => {
      for (const m of batch.messages) newest = Math.max(newest, Number(m.timestamp));
      if (Number(batch.lastOffset()) + 1 >= (left.get(batch.partition) ?? 0)) left.delete(batch.partition);
    },
  });
  await waitFor(`${topic} read to its end`, async () => left.size === 0, { timeoutMs: 300_000 });
  await consumer.disconnect();
  return newest;
}

/**
 * Caught up first (a warm-up event: every row of the table projected), then ROWS events committed in one
 * statement: seconds from the start of that statement until the event log holds every row.
 */
async function measureFrom(stack: Stack, unleash: Awaited<ReturnType<typeof createScratchUnleash>>) {
  const rows = async () =>
    Number((await unleash.client.query<{ n: string }>('SELECT count(*) AS n FROM events')).rows[0].n);
  await insertEvents(unleash.client, 1, { flags: 1, prefix: 'warmup' });
  const warm = await rows();
  await waitFor('caught up (the warm-up event projected)', async () => (await count(stack)) === warm, {
    timeoutMs: 180_000,
    intervalMs: 100,
  });
  const t0 = Date.now();
  await insertEvents(unleash.client, ROWS, { flags: 1000 });
  const committed = Date.now();
  let firstAt = 0;
  await waitFor(
    `${ROWS} events projected`,
    async () => {
      const n = (await count(stack)) - warm;
      if (!firstAt && n > 0) firstAt = Date.now();
      return n === ROWS;
    },
    { timeoutMs: 900_000, intervalMs: 100 },
  );
  const seconds = (Date.now() - t0) / 1000;
  return {
    t0,
    rows: ROWS,
    insertSeconds: Number(((committed - t0) / 1000).toFixed(2)),
    firstProjectedAfterCommitMs: firstAt - committed,
    seconds: Number(seconds.toFixed(2)),
    eventsPerSec: Math.round(ROWS / seconds),
  };
}

main().catch((e) => {
  log(`failed: ${(e as Error).stack ?? e}`);
  process.exit(1);
});
