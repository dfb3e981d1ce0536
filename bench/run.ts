/*
 * npm run bench [-- --quick] [--events N] [--compare <result.json>]
 *
 * One command, one run, ratios measured in the same run (the machines are shared and noisy):
 *  - ingest: N simulated events produced to a fresh topic, then the projector (a real process) from
 *    offset 0 until lag 0; beside it the ceiling: the same rows COPY'd by Postgres into an empty copy
 *    of the event-log table;
 *  - reads: autocannon against the running api (event list of a 100-event flag) at 10 and 50 connections.
 * Results: bench/results/<UTC timestamp>.json and .md.
 */
import 'reflect-metadata';
import { execSync, spawn, ChildProcess } from 'node:child_process';
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { Readable } from 'node:stream';
import { Client } from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import autocannon from 'autocannon';
import { createKafka, topicWatermarks } from '@flaglens/kafka';
import { toWireJson } from '@flaglens/projections';
import { copyRow } from '../libs/projections/src/event-log/copy-text';
import type { FlagEvent } from '@flaglens/contract';
import { createTestDatabase } from '../test/support/test-database';
import { createTestTopic } from '../test/support/test-kafka';
import { freePort, httpGet } from '../test/support/http';

const ROOT = join(__dirname, '..');
const args = process.argv.slice(2);
const quick = args.includes('--quick');
const argValue = (name: string) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
};
const EVENTS = Number(argValue('--events') ?? (quick ? 20000 : 200000));
const READ_SECONDS = Number(argValue('--read-seconds') ?? (quick ? 3 : 15));
const BROKERS = process.env.KAFKA_BROKERS ?? '127.0.0.1:9092';
const EVENTS_PER_FLAG = 100;

function simulatedEvents(n: number): FlagEvent[] {
  const types = [
    'feature-updated',
    'feature-environment-enabled',
    'feature-environment-disabled',
    'feature-strategy-add',
    'feature-strategy-update',
    'feature-tagged',
  ];
  const start = Date.UTC(2025, 0, 1);
  const flags = Math.ceil(n / EVENTS_PER_FLAG);
  const out: FlagEvent[] = [];
  for (let i = 0; i < n; i++) {
    const flag = i % flags;
    const seq = Math.floor(i / flags);
    out.push({
      id: i + 1,
      createdAt: new Date(start + i * 250).toISOString(),
      type: seq === 0 ? 'feature-created' : types[(i * 7) % types.length],
      createdBy: `user${i % 50}@example.com`,
      createdByUserId: (i % 50) + 2,
      environment: seq === 0 ? null : i % 3 ? 'production' : 'development',
      project: `project-${flag % 40}`,
      featureName: `flag-${flag}`,
      data: {
        name: `flag-${flag}`,
        enabled: i % 2 === 0,
        strategies: [
          {
            name: 'flexibleRollout',
            parameters: { rollout: String(i % 100), stickiness: 'default', groupId: `flag-${flag}` },
          },
        ],
      },
      preData: seq === 0 ? null : { name: `flag-${flag}`, enabled: i % 2 === 1 },
      tags: [{ type: 'simple', value: `team-${flag % 9}` }],
    });
  }
  return out;
}

/** The apps as they run in production: compiled (the bench builds first). */
function startApp(app: 'api' | 'projector', env: Record<string, string>): ChildProcess {
  return spawn(
    process.execPath,
    ['-r', join(ROOT, 'scripts', 'dist-paths.js'), join(ROOT, 'dist', 'apps', app, 'src', 'main.js')],
    {
      cwd: ROOT,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'ignore', 'inherit'],
    },
  );
}

function peakRssMb(pid: number): number {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const m = /VmHWM:\s+(\d+) kB/.exec(status);
    return m ? Math.round(Number(m[1]) / 1024) : NaN;
  } catch {
    return NaN;
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function main(): Promise<void> {
  const started = new Date();
  execSync('npm run -s build', { cwd: ROOT, stdio: 'inherit' });
  const kafka = createKafka({ brokers: BROKERS, clientId: 'flaglens-bench', log: () => undefined });
  const db = await createTestDatabase('bench');
  const { topic, drop } = await createTestTopic(kafka, 'bench');
  const pg = new Client({ connectionString: db.url, options: '-c search_path=flaglens_v1,public' });
  await pg.connect();
  const children: ChildProcess[] = [];
  try {
    console.log(`[bench] ${EVENTS} events, topic ${topic}, database ${db.name}`);
    const events = simulatedEvents(EVENTS);

    // produce
    const producer = kafka.producer({ allowAutoTopicCreation: false });
    await producer.connect();
    const p0 = Date.now();
    const chunk = 2000;
    const inFlight: Promise<unknown>[] = [];
    for (let i = 0; i < events.length; i += chunk) {
      inFlight.push(
        producer.send({
          topic,
          acks: -1,
          messages: events
            .slice(i, i + chunk)
            .map((e) => ({ key: e.featureName!, value: JSON.stringify(e) })),
        }),
      );
      if (inFlight.length >= 4) await inFlight.shift();
    }
    await Promise.all(inFlight);
    const produceSeconds = (Date.now() - p0) / 1000;
    await producer.disconnect();
    console.log(`[bench] produced in ${produceSeconds.toFixed(1)} s`);

    // ingest: the projector from offset 0 until lag 0
    const projectorPort = await freePort();
    const env = {
      DATABASE_URL: db.url,
      KAFKA_BROKERS: BROKERS,
      KAFKA_TOPIC: topic,
      KAFKA_GROUP_ID: 'bench',
      PROJECTOR_PORT: String(projectorPort),
      LOG_LEVEL: 'warn',
    };
    const marks = await topicWatermarks(kafka, topic);
    const target = marks.reduce((n, p) => n + p.high, 0);
    const projector = startApp('projector', env);
    children.push(projector);
    let firstAt = 0;
    let applied = 0;
    const t0 = Date.now();
    while (applied < target) {
      const r = await pg.query<{ n: string }>(
        'SELECT coalesce(sum(next_offset), 0) AS n FROM projector_offsets WHERE group_id = $1',
        ['bench'],
      );
      applied = Number(r.rows[0].n);
      if (applied > 0 && !firstAt) firstAt = Date.now();
      if (Date.now() - t0 > 30 * 60_000) throw new Error('ingest did not finish in 30 minutes');
      await sleep(50);
    }
    const doneAt = Date.now();
    const ingestSeconds = (doneAt - firstAt) / 1000;
    const ingestWithStartSeconds = (doneAt - t0) / 1000;
    const projectorPeakRssMb = peakRssMb(projector.pid!);
    const stored = Number((await pg.query<{ n: string }>('SELECT count(*) AS n FROM event_log')).rows[0].n);
    console.log(
      `[bench] projected ${stored} in ${ingestSeconds.toFixed(1)} s (first batch to lag 0), peak RSS ${projectorPeakRssMb} MB`,
    );

    // the ceiling: the same rows COPY'd into an empty copy of the event-log table, one stream; the COPY text
    // is built before the clock starts, so this measures Postgres ingest alone
    await pg.query('CREATE TABLE event_log_ceiling (LIKE event_log INCLUDING ALL)');
    const copyChunks: string[] = [];
    for (let i = 0; i < events.length; i += 5000) {
      copyChunks.push(
        events
          .slice(i, i + 5000)
          .map((e, j) =>
            copyRow([
              e.id,
              e.createdAt,
              e.type,
              e.featureName,
              e.project,
              e.environment,
              e.createdBy,
              e.createdByUserId,
              true,
              toWireJson(e),
              topic,
              0,
              i + j,
            ]),
          )
          .join(''),
      );
    }
    const c0 = Date.now();
    const copyStream = pg.query(
      copyFrom(
        'COPY event_log_ceiling (id, created_at, type, feature_name, project, environment, created_by, created_by_user_id, known_type, body, source_topic, source_partition, source_offset) FROM STDIN',
      ),
    );
    await pipeline(Readable.from(copyChunks), copyStream);
    const copySeconds = (Date.now() - c0) / 1000;
    copyChunks.length = 0;
    await pg.query('DROP TABLE event_log_ceiling');
    const eventsPerSec = Math.round(stored / ingestSeconds);
    const copyCeilingPerSec = Math.round(events.length / copySeconds);
    events.length = 0; // let the reads run without this process holding the history
    console.log(
      `[bench] COPY ceiling ${copyCeilingPerSec}/s; projector ${eventsPerSec}/s; ratio ${(eventsPerSec / copyCeilingPerSec).toFixed(2)}`,
    );

    // reads
    const port = await freePort();
    const api = startApp('api', { ...env, PORT: String(port), FLAGLENS_AUTH: 'off' });
    children.push(api);
    for (
      let i = 0;
      i < 120 && (await httpGet(port, '/health/live').catch(() => ({ status: 0 }))).status !== 200;
      i++
    )
      await sleep(500);
    const path = '/api/admin/events/flag-7';
    const check = (await httpGet(port, path)).json() as { totalEvents: number };
    if (check.totalEvents !== EVENTS_PER_FLAG)
      throw new Error(`expected a ${EVENTS_PER_FLAG}-event flag, got ${check.totalEvents}`);
    await autocannon({ url: `http://127.0.0.1:${port}${path}`, connections: 10, duration: 2 }); // warm-up
    const reads = [];
    for (const connections of [10, 50]) {
      const r = await autocannon({
        url: `http://127.0.0.1:${port}${path}`,
        connections,
        duration: READ_SECONDS,
      });
      reads.push({
        endpoint: `GET /api/admin/events/{100-event flag}`,
        connections,
        reqPerSec: Math.round(r.requests.average),
        p50Ms: r.latency.p50,
        p99Ms: r.latency.p99,
        non2xx: r.non2xx + r.errors,
      });
      console.log(
        `[bench] reads c=${connections}: ${Math.round(r.requests.average)} req/s p50 ${r.latency.p50} ms p99 ${r.latency.p99} ms non2xx ${r.non2xx} errors ${r.errors}`,
      );
    }

    const pgVersion = (await pg.query<{ v: string }>("SELECT current_setting('server_version') AS v")).rows[0]
      .v;
    const result = {
      startedAt: started.toISOString(),
      quick,
      machine: {
        cores: cpus().length,
        cpu: cpus()[0]?.model,
        memoryGb: Math.round(totalmem() / 2 ** 30),
        node: process.version,
        postgres: pgVersion,
        kafka: process.env.KAFKA_VERSION ?? '3.9.1',
      },
      ingest: {
        events: stored,
        produceSeconds,
        seconds: ingestSeconds,
        secondsIncludingStartup: ingestWithStartSeconds,
        eventsPerSec,
        copyCeilingPerSec,
        ratio: Number((eventsPerSec / copyCeilingPerSec).toFixed(3)),
        projectorPeakRssMb,
      },
      reads,
    };
    const stamp = started.toISOString().replace(/[:.]/g, '-');
    mkdirSync(join(__dirname, 'results'), { recursive: true });
    const file = join(__dirname, 'results', `${stamp}.json`);
    writeFileSync(file, JSON.stringify(result, null, 2) + '\n');
    writeFileSync(file.replace(/\.json$/, '.md'), summary(result, argValue('--compare')));
    console.log(`[bench] wrote ${file}`);
    console.log(summary(result, argValue('--compare')));
  } finally {
    for (const c of children) c.kill('SIGTERM');
    await sleep(1000);
    await pg.end();
    await drop();
    await db.drop();
  }
}

type Result = {
  ingest: Record<string, number>;
  reads: {
    endpoint: string;
    connections: number;
    reqPerSec: number;
    p50Ms: number;
    p99Ms: number;
    non2xx: number;
  }[];
  machine: Record<string, unknown>;
  quick: boolean;
};

function summary(r: Result, compareWith?: string): string {
  const prev: Result | undefined = compareWith ? JSON.parse(readFileSync(compareWith, 'utf8')) : undefined;
  const delta = (now: number, before?: number) =>
    before ? ` (${now >= before ? '+' : ''}${(((now - before) / before) * 100).toFixed(0)}% vs before)` : '';
  const lines = [
    `# flaglens bench ${r.quick ? '(quick, no thresholds)' : ''}`,
    '',
    `Machine: ${r.machine.cores} cores, ${r.machine.cpu}, Node ${r.machine.node}, Postgres ${r.machine.postgres}, Kafka ${r.machine.kafka}`,
    '',
    '| figure | value | target |',
    '|---|---|---|',
    `| ingest events/s (first batch → lag 0) | ${r.ingest.eventsPerSec}${delta(r.ingest.eventsPerSec, prev?.ingest.eventsPerSec)} | |`,
    `| COPY ceiling events/s (same run) | ${r.ingest.copyCeilingPerSec} | |`,
    `| ingest / ceiling | ${r.ingest.ratio} | ≥ 0.5 ${r.ingest.ratio >= 0.5 ? 'met' : 'not met'} |`,
    `| projector peak RSS MB | ${r.ingest.projectorPeakRssMb} | ≤ 300 ${r.ingest.projectorPeakRssMb <= 300 ? 'met' : 'not met'} |`,
    ...r.reads.map(
      (x) =>
        `| ${x.endpoint} c=${x.connections}: req/s, p50, p99, non-2xx | ${x.reqPerSec}${delta(x.reqPerSec, prev?.reads.find((p) => p.endpoint === x.endpoint && p.connections === x.connections)?.reqPerSec)}, ${x.p50Ms} ms, ${x.p99Ms} ms, ${x.non2xx} | ${x.connections === 50 ? `≥ 2000 req/s, p99 ≤ 20 ms: ${x.reqPerSec >= 2000 && x.p99Ms <= 20 && x.non2xx === 0 ? 'met' : 'not met'}` : ''} |`,
    ),
    '',
  ];
  return lines.join('\n');
}

main().catch((e) => {
  console.error(`[bench] failed: ${(e as Error).stack ?? e}`);
  process.exit(1);
});
