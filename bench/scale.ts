/*
 * npm run bench:scale -- [--events N] [--quick] [--unleash] [--seed S] [--as-of-wait SECONDS] [--skip-rebuild] [--brief] [--keep]
 *
 * flaglens at the size of a big installation, in one run: the history of libs/testing/src/large-installation.ts
 * (3 years, 200 projects, 5,000 flags of which 3 take 0.51% of the events each, 2,000 users; 10,000,000 events
 * unless told; `--quick`, CI's form: 40,000, under a minute) produced to a fresh topic (a partition's sends one
 * after another, so each flag's events keep their order), then
 *  - ingest: the compiled projector from offset 0 until lag 0 (events/s, as bench/run.ts measures it; CPU µs per
 *    event of the projector and of Postgres, bench/ingest-cpu.ts; the events a projection could not apply,
 *    counted from its log); beside it, the same rows COPY'd into a table with its primary key alone, the COPY
 *    text written to a file before the clock starts (the median of three loads; one with `--quick` or above 2M);
 *  - as-of checkpoints: every second from the projector's start, the events it has applied and those its newest
 *    checkpoint covers (it makes one every AS_OF_CHECKPOINT_EVENTS, left at its default): the longest time an
 *    applied event waited to be covered, give or take one checkpoint (bench/checkpoint-lag.ts); waited for at
 *    most 10 minutes after the ingest (`--as-of-wait`); with `--quick` at most 30 s, beside the next stages,
 *    and no later than the rebuild's switch (the old version's checkpoints go with it);
 *  - reads, through the api with its answer cache off (API_CACHE_MB=0: every answer is read from Postgres, whose
 *    buffers are as warm as the run left them), one request after another: overviews of random projects, the
 *    profiles of random users, the event lists of the hot flags and of random flags (time to first byte), the
 *    insights over the 3 years (the median of 7; one with `--quick`);
 *  - the event search: every structured filter and the UI's pairs, and free text matching none to many events
 *    (p99 of sequential requests, `total` as the api answers it); with `--unleash`, the real Unleash 8.2.0 given
 *    the same events (the first 1,000,000; all with `--quick`; SDK traffic, which its log never holds, left out)
 *    by SQL in its own database, the same searches taking turns with flaglens: Unleash's median time over
 *    flaglens's;
 *  - reads as of random instants of the 3 years (overview, profile, insights), and the checkpoints' storage;
 *  - rebuild: the `rebuild` command (as bench/run.ts runs it) against an api as deployed (its cache on), one
 *    reader reading every 10 ms meanwhile; every project's overview and some of each other read, before and after
 *    the switch, compared.
 * Stages are timed and progress printed as they go; the disk (the databases and the topic's folders) is sampled
 * every second. The database and topic (and Unleash's) are dropped at the end, also on failure or Ctrl-C. The
 * run fails on errors only (a stage that fails, a read that fails during the rebuild, answers that differ after
 * the switch), never on a figure. `--keep` leaves the database (its active version as the run left it) and the
 * topic in place and prints their names, for a look at the big installation afterwards; drop them by hand.
 * Writes bench/results/scale-<UTC timestamp>.json (`--quick`: scale-quick-<timestamp>.json, not kept in git).
 */
import 'reflect-metadata';
import { execFileSync, execSync, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import {
  createReadStream,
  createWriteStream,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { Agent, request } from 'node:http';
import { dirname, join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { once } from 'node:events';
import { Client } from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { Partitioners, type Kafka, type Message } from 'kafkajs';
import { AppConfig } from '@flaglens/config';
import { eventKey } from '@flaglens/contract';
import { createKafka, topicWatermarks } from '@flaglens/kafka';
import { Database, searchPathOption } from '@flaglens/persistence';
import {
  checkpointSchema,
  checkpointStorage,
  EVENT_LOG_COPY_COLUMNS,
  eventLogCopyChunk,
  PersonalAccessTokens,
} from '@flaglens/projections';
import { CopyTextWriter } from '@flaglens/projections/event-log/copy-text';
import {
  flagNameOf,
  HOT_FLAGS,
  largeInstallation,
  largeInstallationSummary,
  projectIdOf,
  type LargeInstallationOptions,
} from '@flaglens/testing/large-installation';
import { prng } from '@flaglens/testing/generate-history';
import { cliArgs } from '@flaglens/testing/support/cli-args';
import { freePort, httpGet } from '@flaglens/testing/support/http';
import { appNodeOptions, startBuiltApp, stopApp } from '@flaglens/testing/support/processes';
import { activeSchema, createTestDatabase, type TestDatabase } from '@flaglens/testing/support/test-database';
import { createTestTopic } from '@flaglens/testing/support/test-kafka';
import { waitFor } from '@flaglens/testing/support/wait-for';
import { installPeer, startPeer, type Peer } from '../conformance/unleash-peer';
import { cpuSample, ingestCpu, type CpuSample, type IngestCpu } from './ingest-cpu';
import { liveHeapPeak, machineFacts, sampleRss } from './proc';
import { asOfLag, type LagSample } from './checkpoint-lag';
import { median } from './stats';

const ROOT = join(__dirname, '..');
const cli = cliArgs();
const QUICK = cli.has('--quick');
const EVENTS = Number(cli.value('--events') ?? (QUICK ? 40_000 : 10_000_000));
const SEED = Number(cli.value('--seed') ?? 42);
const UNLEASH = cli.has('--unleash');
/** Events Unleash is given with `--unleash`: the first million (all with `--quick`). */
const UNLEASH_EVENTS = QUICK ? EVENTS : Math.min(EVENTS, 1_000_000);
/** How long the as-of checkpoints are waited for after the ingest. */
const AS_OF_WAIT_S = Number(cli.value('--as-of-wait') ?? (QUICK ? 30 : 600));
/** `--skip-rebuild`: every stage but the rebuild (its figures then say it was not run) */
const SKIP_REBUILD = cli.has('--skip-rebuild');
/** `--keep`: the database and the topic are left in place at the end (named in the log) */
const KEEP = cli.has('--keep');
for (const [flag, n] of [
  ['--events', EVENTS],
  ['--seed', SEED],
  ['--as-of-wait', AS_OF_WAIT_S],
] as const)
  if (!Number.isInteger(n) || n < 0 || (flag === '--events' && n === 0)) {
    console.error(`${flag} takes a whole number${flag === '--events' ? ' > 0' : ' ≥ 0'}`);
    process.exit(2);
  }
/** Sequential requests per kind of read (and per search), bounded by a time budget; at least `min` each. */
/** `--brief`: each kind of read's time budget a quarter (fewer samples, wider p99s), for a run that must end soon */
const BRIEF = cli.has('--brief') ? 0.25 : 1;
const READS = { count: QUICK ? 50 : 200, budgetMs: QUICK ? 2_000 : 120_000 * BRIEF, min: 10 };
const SEARCHES = { count: QUICK ? 10 : 200, budgetMs: QUICK ? 1_000 : 60_000 * BRIEF, min: 3 };
const AS_OF_READS = { count: QUICK ? 1 : 200, budgetMs: QUICK ? 0 : 300_000 * BRIEF, min: 1 };
/** The uncached insights over the 3 years, read this many times (the median reported). */
const INSIGHTS_RUNS = QUICK ? 1 : 7;
/** Each side's requests per search with `--unleash`, taking turns. */
const UNLEASH_TURNS = 5;
const BROKERS = process.env.KAFKA_BROKERS ?? '127.0.0.1:9092';
/** Left at the projector's default, whatever the environment says (the figure is the default's). */
delete process.env.AS_OF_CHECKPOINT_EVENTS;
const CHECKPOINT_EVERY = new AppConfig().AS_OF_CHECKPOINT_EVENTS;
const HISTORY: LargeInstallationOptions = { seed: SEED, events: EVENTS };
const SUMMARY = largeInstallationSummary(HISTORY);
const CHUNK = 2000;
/** The topic's partitions (as the tests' topics have) */
const PARTITIONS = 6;

const t0 = Date.now();
const log = (m: string) => console.log(`[scale ${((Date.now() - t0) / 1000).toFixed(0)}s] ${m}`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const round = (x: number, digits = 1) => (Number.isFinite(x) ? Number(x.toFixed(digits)) : NaN);
/** The p-th percentile: the smallest sample with at least p% of them at or below it. */
const pct = (xs: readonly number[], p: number): number => {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))];
};

// ---------------------------------------------------------------------------------------------- HTTP

const agent = new Agent({ keepAlive: true, maxSockets: 8 });

interface Timed {
  status: number;
  /** request sent → the body's first bytes */
  ttfbMs: number;
  totalMs: number;
  bytes: number;
  body?: string;
  error?: string;
}

/** A GET, timed: its first byte and its end; the body kept when `keep`. Never rejects: an error is status 0. */
function timedGet(
  port: number,
  path: string,
  headers: Record<string, string>,
  { keep = false, timeoutMs = 120_000 }: { keep?: boolean; timeoutMs?: number } = {},
): Promise<Timed> {
  return new Promise((resolve) => {
    const start = performance.now();
    let ttfbMs = -1;
    let bytes = 0;
    const chunks: Buffer[] = [];
    const done = (r: Omit<Timed, 'totalMs' | 'ttfbMs' | 'bytes'>) =>
      resolve({
        ...r,
        ttfbMs: ttfbMs < 0 ? performance.now() - start : ttfbMs,
        totalMs: performance.now() - start,
        bytes,
      });
    const req = request({ host: '127.0.0.1', port, path, headers, agent }, (res) => {
      res.on('data', (c: Buffer) => {
        if (ttfbMs < 0) ttfbMs = performance.now() - start;
        bytes += c.length;
        if (keep) chunks.push(c);
      });
      res.on('end', () =>
        done({
          status: res.statusCode ?? 0,
          body: keep ? Buffer.concat(chunks).toString('utf8') : undefined,
        }),
      );
      res.on('error', (e) => done({ status: 0, error: e.message }));
    });
    req.setTimeout(timeoutMs, () => req.destroy(new Error(`no answer in ${timeoutMs} ms`)));
    req.on('error', (e) => done({ status: 0, error: e.message }));
    req.end();
  });
}

interface Series {
  /** requests made, and those answered (the times are theirs) */
  samples: number;
  answered: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  /** answers that were not 2xx (or 404 where `notFoundIsAnswer`), and requests not answered (status 0) */
  failed: number;
  statuses: Record<string, number>;
}

/**
 * Sequential reads: `next(i)` gives the i-th path and headers; up to `count` of them, stopping once `budgetMs`
 * is spent and at least `min` are taken, or at once when `alive()` says the server is gone. Times the whole
 * answer (or its first byte with `firstByte`) of every request answered, whatever its status (a request not
 * answered is a failure, not a time).
 */
async function series(
  name: string,
  port: number,
  next: (i: number) => { path: string; headers: Record<string, string> },
  o: {
    count: number;
    budgetMs: number;
    min: number;
    firstByte?: boolean;
    notFoundIsAnswer?: boolean;
    alive?: () => boolean;
  },
): Promise<Series & { firstBody?: string }> {
  const times: number[] = [];
  const statuses: Record<string, number> = {};
  let failed = 0;
  let firstBody: string | undefined;
  const start = Date.now();
  for (let i = 0; i < o.count && (i < o.min || Date.now() - start < o.budgetMs); i++) {
    if (o.alive && !o.alive()) {
      log(`${name}: the server is gone, ${i} reads made`);
      break;
    }
    const { path, headers } = next(i);
    const r = await timedGet(port, path, headers, { keep: i === 0 });
    if (i === 0) firstBody = r.body;
    if (r.status !== 0) times.push(o.firstByte ? r.ttfbMs : r.totalMs);
    statuses[r.status] = (statuses[r.status] ?? 0) + 1;
    const ok = (r.status >= 200 && r.status < 300) || (o.notFoundIsAnswer && r.status === 404);
    if (!ok) {
      failed++;
      if (failed <= 3) log(`${name}: GET ${path} → ${r.status} ${r.error ?? r.body?.slice(0, 200) ?? ''}`);
    }
  }
  const s: Series = {
    samples: Object.values(statuses).reduce((n, c) => n + c, 0),
    answered: times.length,
    p50Ms: round(pct(times, 50)),
    p99Ms: round(pct(times, 99)),
    maxMs: round(Math.max(...times)),
    failed,
    statuses,
  };
  log(
    `${name}: p50 ${s.p50Ms} ms, p99 ${s.p99Ms} ms, max ${s.maxMs} ms (${s.samples} reads${failed ? `, ${failed} failed` : ''}${s.answered < s.samples ? `, ${s.samples - s.answered} not answered` : ''})`,
  );
  return { ...s, firstBody };
}

/** V8's `--trace-gc` line ("[pid:0xisolate] 1185 ms: Mark-Compact …"), read by `liveHeapPeak`, not echoed. */
const GC_TRACE_LINE = /^\[\d+:0x[0-9a-f]+\]/;

/** The old space a process's Node flags allow it (`--max-old-space-size`, MB); undefined: Node's default. */
function heapLimitMb(flags: readonly string[]): number | undefined {
  const m = flags.map((f) => /^--max-old-space-size=(\d+)$/.exec(f)).find(Boolean);
  return m ? Number(m[1]) : undefined;
}

/**
 * Counts the log lines saying a projection did not apply an event (`<projection>: event <id> not applied:
 * <reason>`, the projector's and the rebuild's warning), keeping the first few; other lines pass through to
 * stderr.
 */
function skipCounter(who: string): { feed: (d: Buffer) => void; count: number; examples: string[] } {
  let rest = '';
  const c = {
    count: 0,
    examples: [] as string[],
    feed: (d: Buffer) => {
      const lines = (rest + d.toString()).split('\n');
      rest = lines.pop() ?? '';
      for (const line of lines) {
        const m = /([\w-]+: event \d+ not applied: [^"]*)/.exec(line);
        if (m) {
          c.count++;
          if (c.examples.length < 5) c.examples.push(m[1]);
        } else if (line.trim() && !GC_TRACE_LINE.test(line)) process.stderr.write(`[${who}] ${line}\n`);
      }
    },
  };
  return c;
}

// ---------------------------------------------------------------------------------------------- sampling

/** The broker's log directory (scripts/infra.sh: `log.dirs` of .run/kafka/server.properties), when found. */
function kafkaLogDir(): string | undefined {
  const dir = process.env.KAFKA_RUN_DIR ?? join(ROOT, '.run', 'kafka');
  try {
    const m = /^log\.dirs=(.+)$/m.exec(readFileSync(join(dir, 'server.properties'), 'utf8'));
    return m?.[1].trim().split(',')[0];
  } catch {
    return undefined;
  }
}

/** Bytes on disk of a topic's partition folders (blocks, so preallocated index files count as written). */
function topicBytes(logDir: string | undefined, topic: string): number {
  if (!logDir) return 0;
  let sum = 0;
  try {
    for (const d of readdirSync(logDir))
      if (d.startsWith(`${topic}-`))
        for (const f of readdirSync(join(logDir, d))) {
          try {
            sum += statSync(join(logDir, d, f)).blocks * 512;
          } catch {
            // a segment deleted meanwhile
          }
        }
  } catch {
    return 0;
  }
  return sum;
}

/**
 * Samples every second, on a connection of its own: the disk (the databases and the topic) from `start` to
 * `stop`, and the as-of lag from `sampleLag` until the condition given to `endLagWhen` holds.
 */
class Sampler {
  readonly lag: LagSample[] = [];
  peakDiskBytes = 0;
  peakDatabaseBytes = 0;
  peakTopicBytes = 0;
  /** databases besides the run's (Unleash's), counted in the disk */
  readonly otherDatabases: string[] = [];
  readonly logDir = kafkaLogDir();
  private schema?: string;
  private lagUntil: () => boolean = () => false;
  private lagDone?: () => void;
  private stopped = false;
  private loop?: Promise<void>;

  constructor(
    private readonly pg: Client,
    private readonly topic: string,
    private readonly group: string,
  ) {}

  start(): void {
    this.loop = (async () => {
      while (!this.stopped) {
        const next = Date.now() + 1000;
        await this.sample().catch((e: unknown) => log(`sampler: ${(e as Error).message}`));
        await sleep(Math.max(0, next - Date.now()));
      }
    })();
  }

  /** Samples the projector's progress and its checkpoints' in version `schema`; resolves when that ends. */
  sampleLag(schema: string): Promise<void> {
    this.schema = schema;
    return new Promise((resolve) => (this.lagDone = resolve));
  }

  /** Ends the as-of sampling once `until()` holds (checked after each sample). */
  endLagWhen(until: () => boolean): void {
    this.lagUntil = until;
  }

  /** The newest as-of sample. */
  get last(): LagSample | undefined {
    return this.lag[this.lag.length - 1];
  }

  private async sample(): Promise<void> {
    const r = await this.pg.query<{ bytes: string }>(
      `SELECT coalesce(sum(pg_database_size(datname)), 0)::text AS bytes FROM pg_database WHERE datname = ANY($1)`,
      [[this.pg.database!, ...this.otherDatabases]],
    );
    const database = Number(r.rows[0].bytes);
    const topic = topicBytes(this.logDir, this.topic);
    this.peakDatabaseBytes = Math.max(this.peakDatabaseBytes, database);
    this.peakTopicBytes = Math.max(this.peakTopicBytes, topic);
    this.peakDiskBytes = Math.max(this.peakDiskBytes, database + topic);
    if (!this.schema || !this.lagDone) return;
    const [active] = (
      await this.pg.query<{ s: string }>(
        `SELECT schema_name AS s FROM public.projection_versions WHERE status = 'active'`,
      )
    ).rows;
    if (active?.s !== this.schema) {
      // switched: the version sampled and its checkpoints are gone
      this.endLag();
      return;
    }
    const atMs = Date.now();
    const applied = await appliedOf(this.pg, this.schema, this.group);
    const checkpoints = `${checkpointSchema(this.schema)}.checkpoints`;
    const [{ made }] = (
      await this.pg.query<{ made: boolean }>('SELECT to_regclass($1) IS NOT NULL AS made', [checkpoints])
    ).rows;
    const covered = made
      ? Number(
          (
            await this.pg.query<{ n: string }>(
              `SELECT coalesce(max(events), 0)::text AS n FROM ${checkpoints}`,
            )
          ).rows[0].n,
        )
      : 0;
    this.lag.push({ atMs, applied, covered });
    if (this.lagUntil()) this.endLag();
  }

  private endLag(): void {
    const done = this.lagDone;
    this.lagDone = undefined;
    done?.();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.loop;
  }
}

async function appliedOf(pg: Client, schema: string, group: string): Promise<number> {
  const r = await pg.query<{ n: string }>(
    `SELECT coalesce(sum(next_offset), 0)::text AS n FROM ${schema}.projector_offsets WHERE group_id = $1`,
    [group],
  );
  return Number(r.rows[0].n);
}

// ---------------------------------------------------------------------------------------------- stages

/**
 * The history produced to the topic; seconds. Each event goes to the partition the producers' default
 * partitioner gives its key, named in the message, so that a partition's sends can go one after another (the
 * order of a key's events) while the partitions' go side by side, 4 chunks in flight: concurrent sends to one
 * partition may land out of order, and a flag's events before its creation are events it never had.
 */
async function produce(kafka: Kafka, topic: string): Promise<number> {
  const partitions = PARTITIONS;
  const partitionOf = Partitioners.DefaultPartitioner();
  const metadata = Array.from({ length: partitions }, (_, partitionId) => ({
    partitionId,
    leader: 0,
    replicas: [0],
    isr: [0],
    partitionErrorCode: 0,
  }));
  const producer = kafka.producer({ allowAutoTopicCreation: false });
  await producer.connect();
  const start = Date.now();
  const tails: Promise<unknown>[] = Array.from({ length: partitions }, () => Promise.resolve());
  const inFlight: Promise<unknown>[] = [];
  let sent = 0;
  let shown = 0;
  for (const chunk of largeInstallation({ ...HISTORY, chunk: CHUNK })) {
    const byPartition: Message[][] = Array.from({ length: partitions }, () => []);
    for (const e of chunk) {
      const message: Message = { key: eventKey(e), value: JSON.stringify(e) };
      message.partition = partitionOf({ topic, partitionMetadata: metadata, message });
      byPartition[message.partition].push(message);
    }
    inFlight.push(
      Promise.all(
        byPartition.map((messages, p) =>
          messages.length === 0
            ? tails[p]
            : (tails[p] = tails[p].then(() => producer.send({ topic, acks: -1, messages }))),
        ),
      ),
    );
    if (inFlight.length >= 4) await inFlight.shift();
    sent += chunk.length;
    if (sent - shown >= EVENTS / 10) {
      shown = sent;
      log(`produced ${sent} of ${EVENTS} (${Math.round(sent / ((Date.now() - start) / 1000))}/s)`);
    }
  }
  await Promise.all(inFlight);
  await producer.disconnect();
  return (Date.now() - start) / 1000;
}

/**
 * The same rows COPY'd into a table with its primary key alone: the COPY text (as the projector would store
 * them: each body the value produced) written to a file first, then loaded `runs` times into the emptied
 * table after a CHECKPOINT; events/s of each load.
 */
async function bareCopy(pg: Client, schema: string, topic: string, runs: number): Promise<number[]> {
  const file = join(ROOT, '.run', `scale-copy-${randomBytes(3).toString('hex')}.txt`);
  mkdirSync(join(ROOT, '.run'), { recursive: true });
  try {
    const out = createWriteStream(file);
    let offset = 0;
    for (const chunk of largeInstallation({ ...HISTORY, chunk: 5000 })) {
      const text = eventLogCopyChunk(
        chunk.map((e) => ({
          event: e,
          knownType: true,
          topic,
          partition: 0,
          offset: offset++,
          raw: Buffer.from(JSON.stringify(e)),
        })),
      );
      if (!out.write(text)) await once(out, 'drain');
    }
    out.end();
    await once(out, 'finish');
    log(`bare COPY: ${EVENTS} rows written to ${file} (${(statSync(file).size / 1e9).toFixed(2)} GB)`);
    await pg.query(`CREATE TABLE public.event_log_bare (LIKE ${schema}.event_log INCLUDING DEFAULTS)`);
    await pg.query(`ALTER TABLE public.event_log_bare ADD PRIMARY KEY (id)`);
    const rates: number[] = [];
    for (let run = 0; run < runs; run++) {
      await pg.query('TRUNCATE public.event_log_bare');
      await pg.query('CHECKPOINT');
      const c0 = performance.now();
      await pipeline(
        createReadStream(file, { highWaterMark: 1 << 20 }),
        pg.query(copyFrom(`COPY public.event_log_bare (${EVENT_LOG_COPY_COLUMNS}) FROM STDIN`)),
      );
      rates.push(Math.round(EVENTS / ((performance.now() - c0) / 1000)));
      log(`bare COPY load ${run + 1} of ${runs}: ${rates[run]} events/s`);
    }
    return rates;
  } finally {
    await pg.query('DROP TABLE IF EXISTS public.event_log_bare').catch(() => undefined);
    rmSync(file, { force: true });
  }
}

/** The events Unleash is given: its own `events` table, by COPY, its start-up rows replaced; SDK traffic left out. */
async function loadUnleash(db: Client): Promise<number> {
  await db.query('DELETE FROM events');
  let n = 0;
  const rows = function* () {
    for (const chunk of largeInstallation({ ...HISTORY, chunk: 5000 })) {
      const w = new CopyTextWriter(chunk.length * 800);
      for (const e of chunk) {
        if (e.id > SUMMARY.firstId + UNLEASH_EVENTS - 1) break;
        if (e.type === 'client-metrics' || e.type === 'client-register') continue;
        n++;
        for (const v of [
          e.id,
          e.createdAt,
          e.type,
          e.createdBy,
          e.createdByUserId,
          e.data === null ? null : JSON.stringify(e.data),
          e.preData === null ? null : JSON.stringify(e.preData),
          JSON.stringify(e.tags ?? []),
          e.project,
          e.environment,
          e.featureName,
          e.groupType ?? null,
          e.groupId ?? null,
        ])
          w.field(v);
        w.field(true);
        w.endRow();
      }
      yield w.bytes();
      if (chunk[chunk.length - 1].id >= SUMMARY.firstId + UNLEASH_EVENTS - 1) return;
    }
  };
  await pipeline(
    Readable.from(rows()),
    db.query(
      copyFrom(
        `COPY events (id, created_at, type, created_by, created_by_user_id, data, pre_data, tags, project,
                      environment, feature_name, group_type, group_id, announced) FROM STDIN`,
      ),
    ),
  );
  await db.query(`SELECT setval(pg_get_serial_sequence('events', 'id'), (SELECT max(id) FROM events))`);
  await db.query('VACUUM ANALYZE events');
  return n;
}

// ---------------------------------------------------------------------------------------------- the run

interface Result {
  startedAt: string;
  commit: string;
  quick: boolean;
  seed: number;
  events: number;
  flags: number;
  projects: number;
  users: number;
  groups: number;
  hotFlags: { name: string; events: number }[];
  span: { from: string; to: string };
  machine: Record<string, unknown>;
  peakDiskBytes: number;
  disk: Record<string, unknown>;
  seconds: Record<string, number>;
  ingest: Record<string, unknown>;
  asOf: Record<string, unknown>;
  reads: Record<string, unknown>;
  search: Record<string, unknown>;
  rebuild: Record<string, unknown>;
  /** why the run failed, when it did */
  storage?: { totalBytes: number; relations: Record<string, unknown>[] };
  errors: string[];
}

async function main(): Promise<void> {
  const started = new Date();
  const seconds: Record<string, number> = {};
  let stopping = false;
  const stage = async <T>(name: string, f: () => Promise<T>): Promise<T> => {
    if (stopping) throw new Error(`stopped before ${name}`);
    log(`── ${name}`);
    const s = Date.now();
    try {
      return await f();
    } finally {
      seconds[name] = round((Date.now() - s) / 1000);
      log(`── ${name}: ${seconds[name]} s`);
    }
  };
  const result: Result = {
    startedAt: started.toISOString(),
    commit: execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT, encoding: 'utf8' }).trim(),
    quick: QUICK,
    seed: SEED,
    events: SUMMARY.events,
    flags: SUMMARY.flags,
    projects: SUMMARY.projects,
    users: SUMMARY.users,
    groups: SUMMARY.groups,
    hotFlags: SUMMARY.hotFlags.map(({ name, events }) => ({ name, events })),
    span: { from: SUMMARY.from, to: SUMMARY.to },
    machine: {},
    peakDiskBytes: 0,
    disk: {},
    seconds,
    ingest: {},
    asOf: {},
    reads: {},
    search: {},
    rebuild: {},
    errors: [],
  };
  const stamp = started.toISOString().replace(/[:.]/g, '-');
  let file = join(__dirname, 'results', `scale-${QUICK ? 'quick-' : ''}${stamp}.json`);
  /** The result; where a stage failed, what it got to, in .run/ (not a result to keep). */
  const write = (crashed: boolean) => {
    if (crashed) file = join(ROOT, '.run', `scale-failed-${stamp}.json`);
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, JSON.stringify(result, null, 2) + '\n');
  };

  await stage('build', async () => execSync('npm run -s build', { cwd: ROOT, stdio: 'inherit' }));
  log(
    `${EVENTS} events (seed ${SEED}): ${SUMMARY.projects} projects, ${SUMMARY.flags} flags (${HOT_FLAGS} of ${SUMMARY.hotFlags[0].events} events each), ${SUMMARY.users} users, ${SUMMARY.groups} groups, ${SUMMARY.from} to ${SUMMARY.to}`,
  );

  // everything made is undone here, once: at the end, on a failure and on Ctrl-C
  const children: ChildProcess[] = [];
  const undo: (() => Promise<unknown>)[] = [];
  let cleaned: Promise<void> | undefined;
  const cleanup = () =>
    (cleaned ??= (async () => {
      for (const c of children) await stopApp(c).catch(() => undefined);
      for (const u of undo.reverse())
        await u().catch((e: unknown) => log(`cleanup: ${(e as Error).message}`));
      agent.destroy();
    })());
  /**
   * The apps should run until the end: an exit (not asked for) is an error of the run, recorded when it happens;
   * the stages after it go on without the app.
   */
  const watch = (child: ChildProcess, name: string) => {
    const w: { exit?: string; expected: boolean } = { expected: false };
    child.once('exit', (code, signal) => {
      if (cleaned || w.expected) return;
      w.exit = `${name} exited (${signal ?? `code ${code}`}) ${((Date.now() - t0) / 1000).toFixed(0)} s into the run`;
      log(w.exit);
      result.errors.push(w.exit);
    });
    return w;
  };
  for (const signal of ['SIGINT', 'SIGTERM'] as const)
    process.once(signal, () => {
      stopping = true;
      log(`${signal}: stopping, dropping the database and the topic`);
      void cleanup().finally(() => process.exit(130));
    });

  const kafka = createKafka({ brokers: BROKERS, clientId: 'flaglens-bench-scale', log: () => undefined });
  let crashed = false;
  try {
    const db: TestDatabase = await createTestDatabase('scale');
    const { topic, drop } = await createTestTopic(kafka, 'scale', PARTITIONS);
    if (KEEP)
      undo.push(async () => {
        await db.close();
        log(`kept: DATABASE_URL=${db.url} KAFKA_TOPIC=${topic}`);
      });
    else undo.push(() => db.drop(), drop);
    const group = `scale-${randomBytes(3).toString('hex')}`;
    const pg = new Client({ connectionString: db.url });
    await pg.connect();
    undo.push(() => pg.end());
    const samplerPg = new Client({ connectionString: db.url });
    await samplerPg.connect();
    undo.push(() => samplerPg.end());
    const sampler = new Sampler(samplerPg, topic, group);
    sampler.start();
    undo.push(() => sampler.stop());
    log(`database ${db.name}, topic ${topic}, group ${group}`);
    const env: Record<string, string> = {
      DATABASE_URL: db.url,
      KAFKA_BROKERS: BROKERS,
      KAFKA_TOPIC: topic,
      KAFKA_GROUP_ID: group,
      LOG_LEVEL: 'warn',
      // the history ends then: windows (the last 30 days, this week) are those of its end, in every run alike
      FLAGLENS_CLOCK: SUMMARY.to,
    };

    const schema = await activeSchema(pg);
    // ------------------------------------------------------------------ produce and ingest
    const produceSeconds = await stage('produce', () => produce(kafka, topic));
    result.ingest.produceEventsPerSecond = Math.round(EVENTS / produceSeconds);
    const projectorPort = await freePort();
    // its log is JSON lines on stdout: the events a projection could not apply are counted, not printed
    // with V8's line per collection on its standard output, beside its log: the live heap's peak
    const projector = startBuiltApp(
      'projector',
      { ...env, PROJECTOR_PORT: String(projectorPort) },
      ['ignore', 'pipe', 'inherit'],
      false,
      // and, should its heap reach the limit, a snapshot of it in .run/ (V8 writes it before it gives up)
      ['--trace-gc', '--heapsnapshot-near-heap-limit=1', `--diagnostic-dir=${join(ROOT, '.run')}`],
    );
    children.push(projector);
    const liveSkips = skipCounter('projector');
    const liveHeap = liveHeapPeak();
    projector.stdout!.on('data', (chunk: Buffer) => {
      liveSkips.feed(chunk);
      liveHeap.feed(chunk);
    });
    const projectorWatch = watch(projector, 'the projector');
    projector.on('exit', () =>
      log(
        `the projector's live heap peaked at ${liveHeap.peakMb()} MB (${liveHeap.compactions()} mark-compacts)`,
      ),
    );
    const projectorPeak = sampleRss(projector.pid);
    const lagSampled = sampler.sampleLag(schema);
    const target = (await topicWatermarks(kafka, topic)).reduce((n, p) => n + p.high, 0);
    if (target !== EVENTS) throw new Error(`the topic holds ${target} events, not ${EVENTS}`);
    let ingestEndedAt = 0;
    await stage('ingest', async () => {
      let firstAt = 0;
      let before: CpuSample | undefined;
      let after: CpuSample | undefined;
      let shownAt = Date.now();
      const limitMs = (30 * 60 + EVENTS / 2000) * 1000;
      const s = Date.now();
      for (let applied = 0; applied < target;) {
        applied = await appliedOf(pg, schema, group);
        if (applied > 0 && !firstAt) {
          firstAt = Date.now();
          before = await cpuSample(pg, [projector.pid!], applied);
        }
        if (applied >= target) after = await cpuSample(pg, [projector.pid!], applied);
        if (projectorWatch.exit) throw new Error(projectorWatch.exit);
        if (Date.now() - s > limitMs) throw new Error(`the ingest did not end in ${limitMs / 1000} s`);
        if (Date.now() - shownAt >= 10_000) {
          shownAt = Date.now();
          const covered = sampler.last?.covered ?? 0;
          log(
            `ingest: ${applied} of ${target} applied (${firstAt ? Math.round(applied / ((Date.now() - firstAt) / 1000)) : 0}/s); checkpoints cover ${covered}; the projector's live heap ${liveHeap.lastMb()} MB (peak ${liveHeap.peakMb()} MB)`,
          );
        }
        if (applied < target) await sleep(50);
      }
      ingestEndedAt = Date.now();
      const ingestSeconds = (ingestEndedAt - firstAt) / 1000;
      const metrics = (await httpGet(projectorPort, '/metrics')).text;
      const cpu: IngestCpu | undefined =
        before && after ? ingestCpu(before, after, metrics, target) : undefined;
      Object.assign(result.ingest, {
        eventsPerSecond: Math.round(target / ingestSeconds),
        seconds: round(ingestSeconds),
        projectorPeakRssMb: projectorPeak(),
        projectorPeakLiveHeapMb: liveHeap.peakMb(),
        projectorHeapLimitMb: heapLimitMb(appNodeOptions('projector')),
        skippedEvents: liveSkips.count,
        skippedExamples: liveSkips.examples,
        projectorUsPerEvent: cpu?.projectorUsPerEvent,
        postgresUsPerEvent: cpu?.postgresBackendsUsPerEvent,
        postgresAllUsPerEvent: cpu?.postgresAllUsPerEvent,
        cpu,
      });
      log(
        `ingest: ${target} events in ${round(ingestSeconds)} s, ${result.ingest.eventsPerSecond}/s; CPU µs/event: projector ${cpu?.projectorUsPerEvent}, Postgres backends ${cpu?.postgresBackendsUsPerEvent}`,
      );
    });
    // the as-of sampling ends once the checkpoints cover the log (less one checkpoint's events), or after the wait
    sampler.endLagWhen(
      () =>
        (sampler.last?.covered ?? 0) >= target - CHECKPOINT_EVERY ||
        Date.now() - ingestEndedAt >= AS_OF_WAIT_S * 1000 ||
        projectorWatch.exit !== undefined,
    );

    await stage('storage', async () => {
      // every table and index of the version, with its bytes per million events (its TOAST with its table)
      const { rows } = await pg.query<{ name: string; kind: string; table: string; bytes: string }>(
        `SELECT c.relname AS name, CASE c.relkind WHEN 'i' THEN 'index' ELSE 'table' END AS kind,
                COALESCE(t.relname, c.relname) AS table,
                (pg_relation_size(c.oid) + CASE WHEN c.reltoastrelid <> 0
                   THEN pg_total_relation_size(c.reltoastrelid) ELSE 0 END)::text AS bytes
           FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
           LEFT JOIN pg_index x ON x.indexrelid = c.oid LEFT JOIN pg_class t ON t.oid = x.indrelid
          WHERE n.nspname = $1 AND c.relkind IN ('r', 'i')
          ORDER BY pg_relation_size(c.oid) DESC`,
        [schema],
      );
      const perMillion = (b: number) => Math.round((b / EVENTS) * 1e6);
      result.storage = {
        totalBytes: rows.reduce((n, r) => n + Number(r.bytes), 0),
        relations: rows
          .filter((r) => Number(r.bytes) > 0)
          .map((r) => ({
            name: r.name,
            kind: r.kind,
            table: r.table,
            bytes: Number(r.bytes),
            bytesPerMillionEvents: perMillion(Number(r.bytes)),
          })),
      };
      log(
        `storage: ${rows
          .slice(0, 12)
          .map((r) => `${r.name} ${(Number(r.bytes) / 1e6).toFixed(0)} MB`)
          .join(', ')}`,
      );
    });

    await stage('bareCopy', async () => {
      const runs = await bareCopy(pg, schema, topic, QUICK || EVENTS > 2_000_000 ? 1 : 3);
      const bare = median(runs);
      Object.assign(result.ingest, {
        bareCopyEventsPerSecond: bare,
        bareCopyRuns: runs,
        ratio: round((result.ingest.eventsPerSecond as number) / bare, 3),
      });
      log(`bare COPY ${bare} events/s (${runs.join(', ')}); ingest / bare COPY = ${result.ingest.ratio}`);
    });

    const asOfWait = async () => {
      await stage('asOfWait', async () => {
        let shownAt = Date.now();
        const progress = setInterval(() => {
          if (Date.now() - shownAt < 10_000) return;
          shownAt = Date.now();
          log(`as-of checkpoints cover ${sampler.last?.covered ?? 0} of ${target} events`);
        }, 1000);
        await lagSampled.finally(() => clearInterval(progress));
      });
      const lag = asOfLag(sampler.lag, CHECKPOINT_EVERY);
      Object.assign(result.asOf, {
        checkpointEvery: CHECKPOINT_EVERY,
        maxLagSeconds: lag.maxLagSeconds,
        caughtUp: lag.caughtUp,
        coveredEvents: sampler.last?.covered ?? 0,
        // the last sample's time: with --quick the wait went on beside the next stages
        waitedAfterIngestSeconds: round(((sampler.last?.atMs ?? Date.now()) - ingestEndedAt) / 1000),
        ...(projectorWatch.exit ? { endedBy: projectorWatch.exit } : {}),
        lagSamples: sampler.lag.length,
      });
      log(
        `as-of checkpoints: cover ${result.asOf.coveredEvents} of ${target}; longest wait ${lag.maxLagSeconds} s${lag.caughtUp ? '' : ' (not caught up: the time waited)'}`,
      );
    };
    // the full run waits for them before its reads (the projector's checkpoints take the CPU the reads would
    // share); `--quick` goes on meanwhile, to keep within a minute: its sampling ends at the rebuild's switch
    // at the latest (the old version's checkpoints go with it)
    if (!QUICK) await asOfWait();

    // ------------------------------------------------------------------ the api
    // the figures' api: no answer cache (and so no change feed: it follows a switch by its 5 s check)
    const port = await freePort();
    const coldApi = startBuiltApp('api', { ...env, PORT: String(port), API_CACHE_MB: '0' });
    children.push(coldApi);
    const coldApiWatch = watch(coldApi, 'the api (no answer cache)');
    const alive = () => coldApiWatch.exit === undefined;
    // the rebuild's api, started now to be up by then
    const livePort = await freePort();
    const liveApi = startBuiltApp('api', { ...env, PORT: String(livePort) });
    children.push(liveApi);
    watch(liveApi, 'the api (as deployed)');
    const ds = new Database({ url: db.url, max: 1, options: searchPathOption(schema) });
    undo.push(() => ds.end());
    const tokens = new PersonalAccessTokens(ds);
    const admin = { authorization: (await tokens.create(1, { name: 'scale' })).secret };
    const rnd = prng(SEED + 1);
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)];
    const userIds = (
      await ds.query<{ id: string }>(
        `SELECT id::text FROM identity_users WHERE NOT deleted AND NOT is_system AND id > 1 ORDER BY id`,
      )
    ).map((u) => Number(u.id));
    const profileUsers = Array.from({ length: Math.min(userIds.length, QUICK ? 5 : 20) }, () =>
      pick(userIds),
    );
    const userTokens = [admin];
    for (const u of profileUsers)
      userTokens.push({ authorization: (await tokens.create(u, { name: 'scale' })).secret });
    const projects = (await ds.query<{ id: string }>(`SELECT id FROM projects WHERE exists ORDER BY id`)).map(
      (p) => p.id,
    );
    const ordinaryFlags = Array.from({ length: SUMMARY.flags - HOT_FLAGS }, (_, i) =>
      flagNameOf(i + HOT_FLAGS),
    );
    const hotFlags = SUMMARY.hotFlags.map((h) => h.name);
    await stage('apiStart', () =>
      waitFor(
        'the api up',
        async () => (await httpGet(port, '/health/live').catch(() => ({ status: 0 }))).status === 200,
        {
          timeoutMs: 120_000,
          intervalMs: 250,
        },
      ),
    );
    const day = (iso: string) => iso.slice(0, 10);

    // ------------------------------------------------------------------ reads (no answer cache: each one read)
    await stage('reads', async () => {
      const overview = await series(
        'overview',
        port,
        () => ({
          path: `/api/admin/projects/${pick(projects)}/overview`,
          headers: admin,
        }),
        { ...READS, alive },
      );
      const profile = await series(
        'profile',
        port,
        (i) => ({
          path: '/api/admin/user/profile',
          headers: userTokens[i % userTokens.length],
        }),
        { ...READS, alive },
      );
      const hotList = await series(
        `events of a hot flag (${SUMMARY.hotFlags[0].events} events), first byte`,
        port,
        (i) => ({
          path: `/api/admin/events/${hotFlags[i % hotFlags.length]}`,
          headers: admin,
        }),
        { ...READS, firstByte: true, alive },
      );
      const ordinaryList = await series(
        'events of a random flag, first byte',
        port,
        () => ({
          path: `/api/admin/events/${pick(ordinaryFlags)}`,
          headers: admin,
        }),
        { ...READS, firstByte: true, alive },
      );
      const insightsPath = `/api/admin/insights?from=${day(SUMMARY.from)}&to=${day(SUMMARY.to)}`;
      const insights = await series(
        'insights over the 3 years',
        port,
        () => ({ path: insightsPath, headers: admin }),
        {
          count: INSIGHTS_RUNS,
          budgetMs: 0,
          min: INSIGHTS_RUNS,
          alive,
        },
      );
      // 8.2.0's project status, and the overview's change over the history's last year, of the largest project
      const [{ largest, flags: largestFlags }] = await ds.query<{ largest: string; flags: number }>(
        `SELECT project AS largest, count(*)::int AS flags FROM flag_state WHERE NOT deleted
          GROUP BY project ORDER BY count(*) DESC, project LIMIT 1`,
      );
      const status = await series(
        `status of the largest project (${largestFlags} flags)`,
        port,
        () => ({ path: `/api/admin/projects/${encodeURIComponent(largest)}/status`, headers: admin }),
        { ...READS, alive },
      );
      const yearAgo = new Date(Date.parse(SUMMARY.to) - 365 * 86_400_000).toISOString();
      const diffPath = `/api/admin/diff?${new URLSearchParams({
        path: `/api/admin/projects/${largest}/overview`,
        from: yearAgo,
        to: SUMMARY.to,
      }).toString()}`;
      // two reads as of an instant each: seconds apiece while the checkpoints lag (3 with --quick, which only
      // checks that it answers)
      const diff = await series(
        `the largest project's overview, its change over the last year`,
        port,
        () => ({ path: diffPath, headers: admin }),
        { ...READS, min: QUICK ? 3 : READS.min, alive },
      );
      const hotBytes = (await timedGet(port, `/api/admin/events/${hotFlags[0]}`, admin)).bytes;
      Object.assign(result.reads, {
        what: 'sequential requests to the api with API_CACHE_MB=0 (no answer cache: every answer read from Postgres); random projects, users and flags',
        samples: READS.count,
        overviewP99Ms: overview.p99Ms,
        overviewP50Ms: overview.p50Ms,
        profileP99Ms: profile.p99Ms,
        profileP50Ms: profile.p50Ms,
        flagEventsFirstByteP99Ms: round(Math.max(hotList.p99Ms, ordinaryList.p99Ms)),
        hotFlagEventsFirstByteP99Ms: hotList.p99Ms,
        hotFlagEventsFirstByteP50Ms: hotList.p50Ms,
        hotFlagEventsTotalBytes: hotBytes,
        ordinaryFlagEventsFirstByteP99Ms: ordinaryList.p99Ms,
        ordinaryFlagEventsFirstByteP50Ms: ordinaryList.p50Ms,
        insights3yMs: insights.p50Ms,
        insights3yMaxMs: insights.maxMs,
        insights3yRuns: insights.samples,
        insights3yBytes: insights.firstBody?.length,
        largestProject: { id: largest, flags: largestFlags },
        statusP99Ms: status.p99Ms,
        statusP50Ms: status.p50Ms,
        diffYearP99Ms: diff.p99Ms,
        diffYearP50Ms: diff.p50Ms,
        failedReads:
          overview.failed +
          profile.failed +
          hotList.failed +
          ordinaryList.failed +
          insights.failed +
          status.failed +
          diff.failed,
        series: { overview, profile, hotList, ordinaryList, insights, status, diff },
      });
      for (const s of [overview, profile, hotList, ordinaryList, insights, status, diff]) delete s.firstBody;
    });

    // ------------------------------------------------------------------ the event search
    const mid = SUMMARY.firstId + Math.floor(EVENTS / 2);
    const [{ g: midGroup }] = await ds.query<{ g: string }>(
      `SELECT group_id AS g FROM event_log WHERE id >= $1 AND group_id IS NOT NULL ORDER BY id LIMIT 1`,
      [mid],
    );
    const [{ u: midAuthor }] = await ds.query<{ u: string }>(
      `SELECT created_by_user_id::text AS u FROM event_log WHERE id >= $1 AND created_by_user_id > 1 ORDER BY id LIMIT 1`,
      [mid],
    );
    const midDay = day(new Date((Date.parse(SUMMARY.from) + Date.parse(SUMMARY.to)) / 2).toISOString());
    const monthAgo = day(new Date(Date.parse(SUMMARY.to) - 30 * 86_400_000).toISOString());
    const project = projectIdOf(7);
    const filters: [string, string][] = [
      ['no filter', ''],
      ['type', 'type=IS:feature-strategy-update'],
      ['type, 3 values', 'type=IS_ANY_OF:feature-created,project-created,user-created'],
      ['project', `project=IS:${project}`],
      ['feature', `feature=IS:${flagNameOf(1234 % SUMMARY.flags)}`],
      ['feature, a hot flag', `feature=IS:${hotFlags[0]}`],
      ['createdBy', `createdBy=IS:${midAuthor}`],
      ['environment', 'environment=IS:production'],
      ['id', `id=IS:${mid}`],
      ['groupId', `groupId=IS:${midGroup}`],
      ['from + to (one day)', `from=IS:${midDay}&to=IS:${midDay}`],
      ['from (the last 30 days)', `from=IS:${monthAgo}`],
      ['page 3', 'offset=100'],
      // the UI's pairs: a project and a type, a project or a type and dates
      ['project + type', `project=IS:${project}&type=IS:feature-environment-enabled`],
      ['project + type, page 3', `project=IS:${project}&type=IS:feature-environment-enabled&offset=100`],
      [
        'project + from + to (the last 30 days)',
        `project=IS:${project}&from=IS:${monthAgo}&to=IS:${day(SUMMARY.to)}`,
      ],
      [
        'type + from + to (the last 30 days)',
        `type=IS:feature-archived&from=IS:${monthAgo}&to=IS:${day(SUMMARY.to)}`,
      ],
      ['feature + type', `feature=IS:${hotFlags[0]}&type=IS:feature-strategy-update`],
      ['environment + type', 'environment=IS:production&type=IS:feature-environment-disabled'],
    ];
    const freeText: [string, string][] = [
      ["a user's e-mail", `user${Math.min(SUMMARY.users + 1, 1234)}@example.com`],
      ["a flag's name", `${flagNameOf(1234 % SUMMARY.flags)}"`],
      ['a tag', 'team-7"'],
      ['a strategy', 'flexibleRollout'],
      ['no match', 'no-such-text'],
    ];
    const searchPath = (q: string) => `/api/admin/search/events${q ? `?${q}` : ''}`;
    const total = (body?: string) => {
      try {
        return (JSON.parse(body ?? '') as { total: number }).total;
      } catch {
        return undefined;
      }
    };
    const searches: { name: string; path: string; free: boolean; flaglensP50Ms?: number; total?: number }[] =
      [];
    await stage('search', async () => {
      const rows: Record<string, unknown>[] = [];
      for (const [name, q] of filters) {
        const s = await series(`search: ${name}`, port, () => ({ path: searchPath(q), headers: admin }), {
          ...SEARCHES,
          alive,
        });
        rows.push({
          name,
          query: q,
          p99Ms: s.p99Ms,
          p50Ms: s.p50Ms,
          total: total(s.firstBody),
          samples: s.samples,
          failed: s.failed,
        });
        searches.push({
          name,
          path: searchPath(q),
          free: false,
          flaglensP50Ms: s.p50Ms,
          total: total(s.firstBody),
        });
      }
      const texts: Record<string, unknown>[] = [];
      for (const [name, text] of freeText) {
        const q = `query=${encodeURIComponent(text)}`;
        const s = await series(
          `search: free text, ${name} (${text})`,
          port,
          () => ({ path: searchPath(q), headers: admin }),
          { ...SEARCHES, alive },
        );
        texts.push({
          query: text,
          name,
          matches: total(s.firstBody),
          p99Ms: s.p99Ms,
          p50Ms: s.p50Ms,
          samples: s.samples,
          failed: s.failed,
        });
        searches.push({
          name: `free text, ${name}`,
          path: searchPath(q),
          free: true,
          flaglensP50Ms: s.p50Ms,
          total: total(s.firstBody),
        });
      }
      Object.assign(result.search, {
        what: 'sequential requests, no answer cache (API_CACHE_MB=0); `total` as the api answers it',
        filters: rows,
        freeText: texts,
        failedReads: [...rows, ...texts].reduce((n, r) => n + (r.failed as number), 0),
      });
    });

    // ------------------------------------------------------------------ Unleash 8.2.0 on the same events (--unleash)
    if (!UNLEASH) {
      result.search.unleashSpeedup = null;
      result.search.unleashSpeedupSkipped =
        'not asked for: `--unleash` starts Unleash 8.2.0 and gives it the first 1,000,000 events (all with --quick) by SQL';
    } else
      // a failure here is the run's error, not its end: the stages after it do not need Unleash
      await stage('unleash', async () => {
        installPeer(log, '8.2.0');
        const peer: Peer = await startPeer(await freePort(), undefined, { version: '8.2.0' });
        undo.push(() => peer.stop());
        sampler.otherDatabases.push(peer.db);
        const udb = new Client({ connectionString: peer.dbUrl });
        await udb.connect();
        undo.push(() => udb.end());
        const l0 = Date.now();
        const loaded = await loadUnleash(udb);
        log(
          `Unleash 8.2.0 given ${loaded} events (the first ${UNLEASH_EVENTS} but SDK traffic) in ${round((Date.now() - l0) / 1000)} s`,
        );
        const uHeaders = { authorization: peer.adminToken };
        const rows: Record<string, unknown>[] = [];
        // one path asked of Unleash and of flaglens in turns: the medians, Unleash's first answer and its failures
        const inTurns = async (path: string) => {
          const u: number[] = [];
          const f: number[] = [];
          let first: string | undefined;
          let failed = 0;
          for (let turn = 0; turn < UNLEASH_TURNS; turn++) {
            const ur = await timedGet(peer.port, path, uHeaders, { keep: turn === 0, timeoutMs: 60_000 });
            if (turn === 0) first = ur.body;
            if (ur.status !== 200) failed++;
            u.push(ur.totalMs);
            f.push((await timedGet(port, path, admin)).totalMs);
          }
          return {
            unleashMs: round(median(u)),
            flaglensMs: round(median(f)),
            speedup: round(median(u) / median(f)),
            first,
            unleashFailed: failed,
          };
        };
        for (const s of searches) {
          const { first, ...timed } = await inTurns(s.path);
          const uTotal = total(first);
          const row = { name: s.name, ...timed, unleashTotal: uTotal, flaglensTotal: s.total };
          rows.push(row);
          log(
            `Unleash ${row.unleashMs} ms, flaglens ${row.flaglensMs} ms: ×${row.speedup} (${s.name}; totals ${uTotal} / ${s.total})`,
          );
        }
        // 8.2.0's project status of the largest project, on both sides: Unleash counts its year of activity from
        // its events table on every request; the project made in Unleash as its events say (its id and name)
        let projectStatus: Record<string, unknown> | undefined;
        const largest = (result.reads as { largestProject?: { id: string } }).largestProject?.id;
        if (largest !== undefined) {
          await udb.query(`INSERT INTO projects (id, name) VALUES ($1, $1) ON CONFLICT (id) DO NOTHING`, [
            largest,
          ]);
          const { first: _first, ...timed } = await inTurns(
            `/api/admin/projects/${encodeURIComponent(largest)}/status`,
          );
          projectStatus = { project: largest, ...timed };
          log(
            `project status of ${largest}: Unleash ${projectStatus.unleashMs} ms, flaglens ${projectStatus.flaglensMs} ms: ×${projectStatus.speedup}`,
          );
        }
        Object.assign(result.search, {
          unleashSpeedup: round(median(rows.map((r) => r.speedup as number))),
          unleash: {
            what: `the median of ${UNLEASH_TURNS} requests on each side, taking turns; Unleash holds the first ${UNLEASH_EVENTS} events (but SDK traffic), flaglens all ${EVENTS}`,
            events: loaded,
            searches: rows,
            projectStatus,
          },
        });
        await udb.end();
        await peer.stop();
      }).catch((e: unknown) => {
        result.search.unleashSpeedup = null;
        result.errors.push(`the Unleash stage failed: ${(e as Error).stack ?? String(e)}`);
      });

    // ------------------------------------------------------------------ reads as of an instant
    await stage('asOfReads', async () => {
      const span = Date.parse(SUMMARY.to) - Date.parse(SUMMARY.from);
      const at = () => new Date(Date.parse(SUMMARY.from) + Math.floor(rnd() * span)).toISOString();
      // a project or a user not there yet at the instant is an answer too (404 for a project)
      const o = { ...AS_OF_READS, notFoundIsAnswer: true, alive };
      const overview = await series(
        'as of an instant: overview',
        port,
        () => ({
          path: `/api/admin/projects/${pick(projects)}/overview?at=${at()}`,
          headers: admin,
        }),
        o,
      );
      const profile = await series(
        'as of an instant: profile',
        port,
        (i) => ({
          path: `/api/admin/user/profile?at=${at()}`,
          headers: userTokens[i % userTokens.length],
        }),
        o,
      );
      const insights = await series(
        'as of an instant: insights',
        port,
        () => ({
          path: `/api/admin/insights?at=${at()}`,
          headers: admin,
        }),
        o,
      );
      const c = await ds.connect();
      const storage = await checkpointStorage(c).finally(() => c.release());
      const [{ b }] = await ds.query<{ b: string }>(
        `SELECT pg_total_relation_size('${schema}.event_log')::text AS b`,
      );
      Object.assign(result.asOf, {
        storageBytes: storage.bytes,
        checkpoints: storage.checkpoints,
        eventLogBytes: Number(b),
        overviewP99Ms: overview.p99Ms,
        profileP99Ms: profile.p99Ms,
        insightsP99Ms: insights.p99Ms,
        overviewP50Ms: overview.p50Ms,
        profileP50Ms: profile.p50Ms,
        insightsP50Ms: insights.p50Ms,
        samples: { overview: overview.samples, profile: profile.samples, insights: insights.samples },
        failedReads: overview.failed + profile.failed + insights.failed,
        statuses: { overview: overview.statuses, profile: profile.statuses, insights: insights.statuses },
      });
      for (const s of [overview, profile, insights]) delete s.firstBody;
      log(
        `as-of checkpoints: ${storage.checkpoints}, ${(storage.bytes / 1e6).toFixed(1)} MB; the event log ${(Number(b) / 1e6).toFixed(0)} MB`,
      );
    });
    // ------------------------------------------------------------------ rebuild, reads looping meanwhile
    if (SKIP_REBUILD) result.rebuild.skipped = 'not run (--skip-rebuild)';
    else
      await stage('rebuild', async () => {
        // against the api as deployed (its answer cache on): the change feed tells it of the switch at once, so
        // the old version can be dropped a second after it (`--drop-old-after 1`, as bench/run.ts runs it); an api
        // without the cache has no change feed and learns of the switch by its 5 s check, too late for that
        coldApiWatch.expected = true;
        await stopApp(coldApi);
        await waitFor(
          'the api up',
          async () => (await httpGet(livePort, '/health/live').catch(() => ({ status: 0 }))).status === 200,
          { timeoutMs: 120_000, intervalMs: 250 },
        );
        // every project's overview (500 at most), and a few of each other read
        const compared: [string, string, Record<string, string>][] = [
          ...projects
            .slice(0, 500)
            .map((p): [string, string, Record<string, string>] => [
              `overview of ${p}`,
              `/api/admin/projects/${p}/overview`,
              admin,
            ]),
          ['profile of the admin', '/api/admin/user/profile', admin],
          ...userTokens
            .slice(1)
            .map((h, i): [string, string, Record<string, string>] => [
              `profile of user ${profileUsers[i]}`,
              '/api/admin/user/profile',
              h,
            ]),
          ['events of a hot flag', `/api/admin/events/${hotFlags[0]}`, admin],
          ...ordinaryFlags
            .filter((_, i) => i % Math.max(1, Math.floor(ordinaryFlags.length / 20)) === 0)
            .map((f): [string, string, Record<string, string>] => [
              `events of ${f}`,
              `/api/admin/events/${f}`,
              admin,
            ]),
          ['search, no filter', searchPath(''), admin],
          ['search, project + type', searchPath(filters[13][1]), admin],
          ['search, free text', searchPath('query=team-7%22'), admin],
          ['insights', `/api/admin/insights?from=${day(SUMMARY.from)}&to=${day(SUMMARY.to)}`, admin],
        ];
        const read = async () => {
          const out: Timed[] = [];
          for (const [, path, h] of compared) out.push(await timedGet(livePort, path, h, { keep: true }));
          return out;
        };
        const before = await read();
        // a read that does not answer before the rebuild (a statement timeout at this size) is not compared after
        // it; the others must answer the same
        const notCompared = compared
          .map(([name], i) => ({ name, status: before[i].status }))
          .filter((x) => x.status !== 200);
        for (const x of notCompared) log(`rebuild: ${x.name} answered ${x.status} before it: not compared`);
        // one reader, a request every 10 ms at most (it checks the reads, it is not a load that would slow the
        // rebuild): an overview, a profile, a flag's events, a search, in turn
        const kinds = [
          () => ({ path: `/api/admin/projects/${pick(projects)}/overview`, headers: admin }),
          () => ({ path: '/api/admin/user/profile', headers: pick(userTokens) }),
          () => ({ path: `/api/admin/events/${pick(ordinaryFlags)}`, headers: admin }),
          () => ({ path: searchPath(pick(filters.slice(1, 8))[1]), headers: admin }),
        ];
        let reading = true;
        let reads = 0;
        let failed = 0;
        const reader = (async () => {
          while (reading) {
            const next = performance.now() + 10;
            const { path, headers } = kinds[reads % kinds.length]();
            const r = await timedGet(livePort, path, headers, { keep: true, timeoutMs: 60_000 });
            reads++;
            if (r.status < 200 || r.status >= 300) {
              failed++;
              if (failed <= 5) log(`rebuild: GET ${path} → ${r.status} ${r.error ?? r.body?.slice(0, 200)}`);
            }
            await sleep(Math.max(0, next - performance.now()));
          }
        })();
        const r0 = Date.now();
        const rebuild = spawn(
          process.execPath,
          [join(ROOT, 'bin', 'flaglens.js'), 'rebuild', '--json', '--drop-old-after', '1'],
          { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] },
        );
        children.push(rebuild);
        const rebuildSkips = skipCounter('rebuild');
        rebuild.stderr!.on('data', rebuildSkips.feed);
        const peak = sampleRss(rebuild.pid);
        let out = '';
        rebuild.stdout!.on('data', (d: Buffer) => (out += d.toString()));
        const progress = setInterval(
          () => log(`rebuild running: ${reads} reads meanwhile, ${failed} failed`),
          10_000,
        );
        const code = await new Promise<number | null>((r) => rebuild.once('exit', r));
        clearInterval(progress);
        const processSeconds = (Date.now() - r0) / 1000;
        const peakRssMb = peak();
        // reads go on until the old version is gone (dropped a second after the switch), and a second more
        await waitFor(
          'the old version dropped',
          async () =>
            (await pg.query<{ gone: boolean }>('SELECT to_regnamespace($1) IS NULL AS gone', [schema]))
              .rows[0].gone,
          { timeoutMs: 30_000, intervalMs: 250 },
        ).catch(() => log(`the old version ${schema} is still there 30 s after the rebuild`));
        await sleep(1000);
        reading = false;
        await reader;
        if (code !== 0) throw new Error(`rebuild exited with ${code}: ${out}`);
        const rb = JSON.parse(out.trim().split('\n').pop()!) as {
          events: number;
          seconds: number;
          switched: boolean;
        };
        const after = await read();
        const canonical = (t?: string) => {
          try {
            return JSON.stringify(JSON.parse(t ?? ''));
          } catch {
            return `not JSON: ${t?.slice(0, 100)}`;
          }
        };
        const differing = compared
          .filter(
            (_, i) =>
              before[i].status === 200 &&
              (after[i].status !== before[i].status ||
                canonical(after[i].body) !== canonical(before[i].body)),
          )
          .map(([name]) => name);
        Object.assign(result.rebuild, {
          seconds: round(rb.seconds),
          processSeconds: round(processSeconds),
          events: rb.events,
          eventsPerSecond: Math.round(rb.events / rb.seconds),
          switched: rb.switched,
          peakRssMb,
          readsDuring: reads,
          failedReads: failed,
          identicalAfterSwitch: differing.length === 0,
          compared: compared.length - notCompared.length,
          notCompared,
          differing,
          skippedEvents: rebuildSkips.count,
          skippedExamples: rebuildSkips.examples,
        });
        log(
          `rebuild: ${rb.events} events in ${round(rb.seconds)} s (${result.rebuild.eventsPerSecond}/s), peak RSS ${peakRssMb} MB; ${reads} reads during it, ${failed} failed; identical after the switch: ${differing.length === 0 ? 'yes' : `NO (${differing.join(', ')})`}`,
        );
        if (!rb.switched) result.errors.push('the rebuild did not switch');
        if (failed > 0) result.errors.push(`${failed} reads failed during the rebuild`);
        if (differing.length > 0)
          result.errors.push(`answers differ after the switch: ${differing.join(', ')}`);
      });
    if (QUICK) await asOfWait();
    await sampler.stop();
    result.peakDiskBytes = sampler.peakDiskBytes;
    result.disk = {
      peakDatabaseBytes: sampler.peakDatabaseBytes,
      peakTopicBytes: sampler.peakTopicBytes,
      kafkaLogDir: sampler.logDir ?? 'not found: the topic is not counted',
      what: "the largest sum, sampled every second, of the databases (the run's, and Unleash's with --unleash) and the topic's folders on the broker's disk",
    };
    result.machine = await machineFacts(pg);
  } catch (e) {
    crashed = true;
    result.errors.push(`a stage failed: ${(e as Error).stack ?? String(e)}`);
    throw e;
  } finally {
    seconds.total = round((Date.now() - t0) / 1000);
    write(crashed);
    log(`wrote ${file}`);
    await cleanup();
  }
  console.log(JSON.stringify(result, null, 2));
  if (result.errors.length > 0) {
    for (const e of result.errors) log(`FAILED: ${e}`);
    process.exitCode = 1;
  }
}

if (require.main === module)
  main().catch((e: unknown) => {
    log(`failed: ${(e as Error).stack ?? String(e)}`);
    process.exit(1);
  });
