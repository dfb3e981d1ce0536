/*
 * npm run chaos [-- --quick] [--events N] [--seed S] [--kafka-version V]
 *
 * Many faults at once, bounded in time and count, loopback only, ends by itself:
 *  - a simulated history (projects, flags, moves, archive/revive/delete, users, groups, memberships, metrics)
 *    with poison messages mixed in is produced at a steady rate to a fresh topic;
 *  - meanwhile 3 projector processes (one consumer group) project it, and the run SIGKILLs one of them at
 *    random points (restarting it at once), restarts its own Kafka broker and its own Postgres cluster (fast
 *    and immediate modes);
 *  - when all is consumed: every (partition, offset) of the topic is accounted for exactly once (stored,
 *    dead-lettered with a reason, or a re-delivery of an id already stored), then every endpoint's answer for
 *    every flag, project and user, and the insights report, is compared with a clean single-projector rebuild
 *    (the `rebuild` command's code path) of the same topic.
 * Report: chaos/results/<UTC timestamp>.json (`--quick`: chaos/results/<ts>-quick.json, not committed).
 * Exit status 1 when anything was lost, duplicated or differs.
 *
 * What it touches: only what it starts. Its own Postgres cluster (`initdb` into .run/chaos-pg/, a free
 * loopback port, `pg_ctl`) and its own single-node Kafka broker (`scripts/infra.sh kafka-up` with free ports
 * and .run/chaos-kafka/, the same jars), both deleted at the end (or at the next run, if it was interrupted);
 * never the machine's Postgres server or the shared broker at 127.0.0.1:9092. Its broker runs Kafka
 * `--kafka-version` (default: infra.sh's, 4.4.0): `npm test` gives it 3.9.1, the other supported major.
 */
import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import { execSync, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createWriteStream, mkdirSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';
import type { Kafka, Producer } from 'kafkajs';
import { Pool } from 'pg';
import { createKafka } from '@flaglens/kafka';
import { eventKey, type FlagEvent } from '@flaglens/contract';
import { ActiveVersionPool, rowsVia } from '@flaglens/persistence';
import { activeSchema } from '@flaglens/testing/support/test-database';
import { InsightsReadModel, IdentityReadModel } from '@flaglens/projections';
import { generateHistory, prng } from '@flaglens/testing/generate-history';
import { runRebuild } from '@flaglens/pipeline';
import { loadConfig } from '@flaglens/config';
import { VERSION_SCHEMA_MIGRATIONS, VERSION_SCHEMA_ROUTINES } from '../migrations';
import { allAnswers } from '@flaglens/testing/support/answers';
import { createTestDatabase } from '@flaglens/testing/support/test-database';
import { createTestTopic } from '@flaglens/testing/support/test-kafka';
import { freePort } from '@flaglens/testing/support/http';
import { cliArgs } from '@flaglens/testing/support/cli-args';
import { startBuiltApp, stopApp } from '@flaglens/testing/support/processes';
import { startLocalPostgres, type LocalPostgres } from '@flaglens/testing/support/local-postgres';
import { startLocalKafka, type LocalKafka } from '@flaglens/testing/support/local-kafka';

const ROOT = join(__dirname, '..');
const cli = cliArgs();
const quick = cli.has('--quick');
const argValue = cli.value;
const NOW = '2026-11-22T09:01:00.000Z';
const GROUP = 'chaos';
const PLAN = quick
  ? { events: 50_000, kills: 5, brokerRestarts: 1, postgresRestarts: 1, projectors: 3, produceSeconds: 45 }
  : {
      events: 1_000_000,
      kills: 20,
      brokerRestarts: 3,
      postgresRestarts: 2,
      projectors: 3,
      produceSeconds: 200,
    };
PLAN.events = Number(argValue('--events') ?? PLAN.events);
const SEED = Number(argValue('--seed') ?? 20261122);
/** The Kafka release of its own broker (scripts/infra.sh's KAFKA_VERSION); infra.sh's default if not given. */
const KAFKA_VERSION = argValue('--kafka-version') ?? process.env.KAFKA_VERSION;
/** one poison message every POISON_EVERY events */
const POISON_EVERY = 2500;
const CATCH_UP_TIMEOUT_MS = (quick ? 5 : 20) * 60_000;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const runStart = Date.now();
let t0 = runStart;
const elapsed = () => Number(((Date.now() - t0) / 1000).toFixed(1));
const log = (m: string) => console.log(`[chaos ${elapsed().toFixed(1).padStart(6)} s] ${m}`);
const rnd = prng(SEED);

/** Poison messages: each must end up dead-lettered with a reason, never block its partition. */
const POISONS: ((n: number) => string)[] = [
  (n) => `{"id": ${n}, "type": "feature-created", "createdAt": `, // truncated JSON
  () => JSON.stringify({ type: 'feature-created', createdBy: 'x' }), // missing fields
  // (a type flaglens does not know is no poison: it is stored and answered, as a newer Unleash's audit record)
  (n) =>
    JSON.stringify({
      id: n,
      type: 'feature-created',
      createdAt: 'yesterday',
      createdBy: 'x',
      createdByUserId: 1,
    }),
  () =>
    JSON.stringify({ id: 0, type: 'feature-created', createdAt: NOW, createdBy: 'x', createdByUserId: 1 }),
  () => 'null',
  () => '\u0000\u0001binary\uFFFF',
];

interface Fault {
  kind: 'kill' | 'broker-restart' | 'postgres-restart';
  atSeconds: number;
  /** how long the fault itself took (process restarted, broker or Postgres back) */
  downSeconds: number;
  /** from the fault until every partition has moved on again (or has nothing left to consume) */
  recoverySeconds: number | null;
  detail?: string;
}

async function main(): Promise<void> {
  // the rebuild's per-event warnings (the history has inconsistent events on purpose) are in the projectors' logs
  Logger.overrideLogger(['log', 'error', 'fatal']);
  const startedAt = new Date();
  mkdirSync(join(ROOT, 'chaos', 'results'), { recursive: true });
  const logDir = join(ROOT, '.cache', 'chaos', startedAt.toISOString().replace(/[:.]/g, '-'));
  mkdirSync(logDir, { recursive: true });
  execSync('npm run -s build', { cwd: ROOT, stdio: 'inherit' });

  const history = generateHistory({
    seed: SEED,
    projects: quick ? 10 : 50,
    flagsPerProject: quick ? 40 : 200,
    events: PLAN.events,
    weeks: 52,
    end: NOW,
    rich: true,
  });
  const messages: { key: string | null; value: string; poison: boolean }[] = [];
  let poison = 0;
  for (const e of history) {
    messages.push({ key: eventKey(e), value: JSON.stringify(e), poison: false });
    if (e.id % POISON_EVERY === 0)
      messages.push({
        key: `poison-${poison}`,
        value: POISONS[poison++ % POISONS.length](e.id),
        poison: true,
      });
  }
  log(`${history.length} events and ${poison} poison messages, seed ${SEED}; logs in ${logDir}`);

  // its own Postgres cluster and Kafka broker, the only ones it restarts
  let ownPostgres: LocalPostgres | undefined;
  let ownKafka: LocalKafka | undefined;
  let passed = false;
  const stopOwn = async () => {
    await ownKafka?.stop().catch((e) => console.error(`[chaos] ${String(e)}`));
    try {
      ownPostgres?.stop();
    } catch (e) {
      console.error(`[chaos] ${String(e)}`);
    }
    ownKafka = ownPostgres = undefined;
  };
  process.once('SIGINT', () => void stopOwn().finally(() => process.exit(130)));
  process.once('SIGTERM', () => void stopOwn().finally(() => process.exit(143)));
  try {
    ownPostgres = await startLocalPostgres(join(ROOT, '.run', 'chaos-pg'));
    ownKafka = await startLocalKafka(join(ROOT, '.run', 'chaos-kafka'), {
      env: KAFKA_VERSION ? { KAFKA_VERSION } : {},
    });
    log(
      `own Postgres cluster at 127.0.0.1:${ownPostgres.port} (.run/chaos-pg), own Kafka ${ownKafka.version} broker at ${ownKafka.brokers} (.run/chaos-kafka)`,
    );
    passed = await run(history, messages, poison, startedAt, logDir, ownPostgres, ownKafka);
  } finally {
    await stopOwn();
  }
  process.exit(passed ? 0 : 1);
}

async function run(
  history: FlagEvent[],
  messages: { key: string | null; value: string; poison: boolean }[],
  poison: number,
  startedAt: Date,
  logDir: string,
  ownPostgres: LocalPostgres,
  ownKafka: LocalKafka,
): Promise<boolean> {
  const BROKERS = ownKafka.brokers;
  const kafka = createKafka({ brokers: BROKERS, clientId: 'flaglens-chaos', log: () => undefined });
  const db = await createTestDatabase('chaos', ownPostgres.url);
  const { topic, drop } = await createTestTopic(kafka, 'chaos');
  const pool = new Pool({ connectionString: db.url, max: 2 });
  pool.on('error', () => undefined); // Postgres restarts end idle connections; the next query reconnects
  const env = {
    DATABASE_URL: db.url,
    KAFKA_BROKERS: BROKERS,
    KAFKA_TOPIC: topic,
    KAFKA_GROUP_ID: GROUP,
    KAFKA_SESSION_TIMEOUT_MS: '6000',
    LOG_LEVEL: 'warn',
    FLAGLENS_CLOCK: NOW,
  };

  // --- positions -------------------------------------------------------------------------------------------
  let high = new Map<number, number>();
  const admin = kafka.admin();
  await admin.connect();
  const refreshHigh = async () => {
    try {
      const offsets = await admin.fetchTopicOffsets(topic);
      high = new Map(offsets.map((o) => [o.partition, Number(o.high)]));
    } catch {
      /* broker restarting: keep the last known marks */
    }
  };
  const positions = async (): Promise<Map<number, number> | null> => {
    try {
      const active = await activeSchema(pool);
      const r = await pool.query<{ partition: number; next_offset: string }>(
        `SELECT partition, next_offset FROM ${active}.projector_offsets WHERE group_id = $1 AND topic = $2`,
        [GROUP, topic],
      );
      return new Map(r.rows.map((x) => [x.partition, Number(x.next_offset)]));
    } catch {
      return null; // Postgres restarting
    }
  };
  /** Resolves (with the seconds taken) once every partition has moved past `from` or has nothing left. */
  const recovered = async (from: Map<number, number>, since: number, limitMs = 180_000) => {
    while (Date.now() - since < limitMs) {
      await refreshHigh();
      const now = await positions();
      if (
        now &&
        [...high.entries()].every(
          ([p, h]) => (now.get(p) ?? 0) >= h || (now.get(p) ?? 0) > (from.get(p) ?? 0),
        )
      )
        return Number(((Date.now() - since) / 1000).toFixed(2));
      await sleep(100);
    }
    return null;
  };
  const snapshot = async () => {
    for (;;) {
      const p = await positions();
      if (p) return p;
      await sleep(200);
    }
  };

  // --- projectors, supervised: an instance that exits on its own is restarted (and counted) -------------
  const ports = await Promise.all(Array.from({ length: PLAN.projectors }, () => freePort()));
  const slots: { child: ChildProcess; killing: boolean; crashes: number }[] = [];
  let stopping = false;
  const spawnProjector = (i: number): ChildProcess => {
    const out = createWriteStream(join(logDir, `projector-${i}.log`), { flags: 'a' });
    const child = startBuiltApp('projector', { ...env, PROJECTOR_PORT: String(ports[i]) }, [
      'ignore',
      'pipe',
      'pipe',
    ]);
    // both streams into one file: neither may end it (the other may still write), it is closed on exit
    child.stdout!.pipe(out, { end: false });
    child.stderr!.pipe(out, { end: false });
    child.once('close', () => out.end());
    child.once('exit', (code, signal) => {
      const slot = slots[i];
      if (stopping || !slot || slot.child !== child || slot.killing) return;
      slot.crashes++;
      log(`projector ${i} exited by itself (${signal ?? code}); restarting it`);
      setTimeout(() => {
        if (!stopping) slot.child = spawnProjector(i);
      }, 1000);
    });
    return child;
  };
  for (let i = 0; i < PLAN.projectors; i++)
    slots.push({ child: spawnProjector(i), killing: false, crashes: 0 });

  // --- production at a steady rate, retried through broker restarts ---------------------------------------
  let producerRetries = 0;
  let produced = 0;
  const produceAll = async () => {
    const chunk = 500;
    const perMs = messages.length / (PLAN.produceSeconds * 1000);
    let producer: Producer | null = null;
    const p0 = Date.now();
    for (let i = 0; i < messages.length; i += chunk) {
      const due = p0 + i / perMs;
      if (due > Date.now()) await sleep(due - Date.now());
      const batch = messages.slice(i, i + chunk).map((m) => ({ key: m.key, value: m.value }));
      for (;;) {
        try {
          if (!producer) {
            producer = kafka.producer({ allowAutoTopicCreation: false });
            await producer.connect();
          }
          await producer.send({ topic, acks: -1, messages: batch });
          break;
        } catch {
          // sent again as a whole: messages the broker did keep are now there twice (ids dedupe them)
          producerRetries++;
          await producer?.disconnect().catch(() => undefined);
          producer = null;
          await sleep(1000);
        }
      }
      produced = i + batch.length;
    }
    await producer?.disconnect().catch(() => undefined);
    log(`produced ${messages.length} messages (${producerRetries} chunk retries)`);
  };

  // --- faults --------------------------------------------------------------------------------------------
  const faults: Fault[] = [];
  const window = PLAN.produceSeconds * 1000;
  const at = (n: number, lo: number, hi: number) =>
    Array.from({ length: n }, () => lo + rnd() * (hi - lo)).sort((a, b) => a - b);
  const killTimes = at(PLAN.kills, 3000, window);
  // infrastructure restarts evenly spread (each takes a while), kinds interleaved
  const infra: Fault['kind'][] = [];
  for (let b = PLAN.brokerRestarts, p = PLAN.postgresRestarts; b + p > 0;) {
    if (b >= p && b > 0) {
      infra.push('broker-restart');
      b--;
    } else {
      infra.push('postgres-restart');
      p--;
    }
  }
  const infraTimes = infra.map((_, k) => ((k + 0.5) / infra.length) * window * 0.9 + rnd() * 2000);

  /** Recoveries being watched: faults keep their schedule, the next one does not wait for the last recovery. */
  const watching: Promise<void>[] = [];
  const recordFault = async (kind: Fault['kind'], act: () => Promise<string | undefined>) => {
    const since = Date.now();
    const from = await snapshot();
    const atSeconds = elapsed();
    const detail = await act();
    const downSeconds = Number(((Date.now() - since) / 1000).toFixed(2));
    watching.push(
      recovered(from, since).then((recoverySeconds) => {
        faults.push({ kind, atSeconds, downSeconds, recoverySeconds, ...(detail ? { detail } : {}) });
        log(
          `${kind}${detail ? ` (${detail})` : ''}: down ${downSeconds} s, recovered after ${recoverySeconds ?? 'NOT RECOVERED'} s`,
        );
      }),
    );
  };

  const kill = async (): Promise<string> => {
    const i = Math.floor(rnd() * slots.length);
    const slot = slots[i];
    slot.killing = true;
    const exited = new Promise<void>((r) =>
      slot.child.exitCode !== null || slot.child.signalCode !== null
        ? r()
        : slot.child.once('exit', () => r()),
    );
    slot.child.kill('SIGKILL');
    await exited;
    slot.child = spawnProjector(i);
    slot.killing = false;
    return `projector ${i}`;
  };
  const restartBroker = async (): Promise<undefined> => {
    await ownKafka.restart(); // its own broker, by its PID (SIGTERM), then started again on the same ports
    return undefined;
  };
  let pgRestarts = 0;
  const restartPostgres = async (): Promise<string> => {
    // its own cluster, alternating the modes
    const mode = pgRestarts++ % 2 === 0 ? 'fast' : 'immediate';
    ownPostgres.restart(mode);
    return `${mode} mode`;
  };

  const killLoop = async () => {
    for (const t of killTimes) {
      const wait = t0 + t - Date.now();
      if (wait > 0) await sleep(wait);
      await recordFault('kill', kill);
    }
  };
  const infraLoop = async () => {
    for (let k = 0; k < infra.length; k++) {
      const wait = t0 + infraTimes[k] - Date.now();
      if (wait > 0) await sleep(wait);
      await recordFault(infra[k], infra[k] === 'broker-restart' ? restartBroker : restartPostgres);
    }
  };

  let report: Record<string, unknown> = {};
  let ok = false;
  try {
    const progress = setInterval(() => {
      void positions().then((p) => {
        if (!p) return;
        const applied = [...p.values()].reduce((a, b) => a + b, 0);
        log(`produced ${produced}/${messages.length}, applied ${applied}`);
      });
    }, 10_000);
    t0 = Date.now(); // fault times count from the first message
    await Promise.all([produceAll(), killLoop(), infraLoop()]);
    await Promise.all(watching);
    faults.sort((a, b) => a.atSeconds - b.atSeconds);

    // --- catch up: every partition's position at its high-water mark, twice in a row ----------------------
    const c0 = Date.now();
    let caughtUp = 0;
    while (caughtUp < 2) {
      if (Date.now() - c0 > CATCH_UP_TIMEOUT_MS) throw new Error('the projectors did not catch up in time');
      await refreshHigh();
      const p = await positions();
      caughtUp = p && [...high.entries()].every(([part, h]) => (p.get(part) ?? 0) === h) ? caughtUp + 1 : 0;
      await sleep(500);
    }
    clearInterval(progress);
    const catchUpSeconds = Number(((Date.now() - c0) / 1000).toFixed(1));
    log(`caught up ${catchUpSeconds} s after the last fault and message`);
    stopping = true;
    await Promise.all(slots.map((s) => stopApp(s.child)));

    // --- accounting: every (partition, offset) of the topic exactly once ----------------------------------
    const account = await accountOffsets(kafka, topic, high, pool, history);

    // --- every answer, against a clean single-projector rebuild ------------------------------------------
    const reads = new ActiveVersionPool(db.url, 4, 100);
    const scope = {
      flags: [...new Set(history.flatMap((e) => (e.featureName ? [e.featureName] : [])))].sort(),
      projects: [...new Set(['default', ...history.flatMap((e) => (e.project ? [e.project] : []))])].sort(),
      users: Array.from({ length: 26 }, (_, i) => i + 1),
    };
    const chaosAnswers = await digests(reads, scope);
    log(`${chaosAnswers.size} answers read; rebuilding from offset 0 with one projector`);
    const rebuild = await runRebuild({
      url: db.url,
      kafka,
      topic,
      liveGroupId: GROUP,
      projectionMigrations: VERSION_SCHEMA_MIGRATIONS,
      projectionRoutines: VERSION_SCHEMA_ROUTINES,
      concurrency: 2,
      sessionTimeoutMs: 6000,
      // as the projectors (started with the default ACCEPT_UNKNOWN_EVENT_TYPES) apply them
      allowUnknownTypes: loadConfig({}).ACCEPT_UNKNOWN_EVENT_TYPES,
      maxEventBytes: 1024 * 1024,
      dropOldAfterMs: 0,
    });
    const cleanAnswers = await digests(reads, scope);
    await reads.close();
    const mismatches = [...new Set([...chaosAnswers.keys(), ...cleanAnswers.keys()])].filter(
      (k) => chaosAnswers.get(k) !== cleanAnswers.get(k),
    );
    const identical = rebuild.switched && mismatches.length === 0;

    const recoveries = faults.map((f) => f.recoverySeconds ?? Infinity).sort((a, b) => a - b);
    report = {
      startedAt: startedAt.toISOString(),
      quick,
      command: `npm run chaos -- ${quick ? '--quick ' : ''}--kafka-version ${ownKafka.version}`,
      seed: SEED,
      machine: { cores: cpus().length, node: process.version, kafka: ownKafka.version },
      events: history.length,
      messages: messages.length,
      poisonMessages: poison,
      projectors: PLAN.projectors,
      kills: faults.filter((f) => f.kind === 'kill').length,
      brokerRestarts: faults.filter((f) => f.kind === 'broker-restart').length,
      postgresRestarts: faults.filter((f) => f.kind === 'postgres-restart').length,
      unplannedExits: slots.reduce((n, s) => n + s.crashes, 0),
      producerChunkRetries: producerRetries,
      topicMessages: account.messages,
      lost: account.lost,
      duplicated: account.duplicated,
      redelivered: account.redelivered,
      deadLetters: account.deadLetters,
      poisonMessagesInTopic: account.poison.inTopic,
      identical,
      answersCompared: chaosAnswers.size,
      mismatches: mismatches.slice(0, 100),
      mismatchCount: mismatches.length,
      recovery: {
        maxSeconds: recoveries[recoveries.length - 1] ?? null,
        p50Seconds: recoveries[Math.floor(recoveries.length / 2)] ?? null,
      },
      faults,
      catchUpSeconds,
      rebuild: { seconds: rebuild.seconds, events: rebuild.events, deadLetters: rebuild.deadLetters },
      seconds: Number(((Date.now() - runStart) / 1000).toFixed(1)),
    };
    ok =
      account.lost === 0 &&
      account.duplicated === 0 &&
      identical &&
      // every poison message generated reached the topic, and each copy there was dead-lettered
      account.poison.distinct === poison &&
      account.deadLetters.count === account.poison.inTopic &&
      faults.every((f) => f.recoverySeconds !== null);
  } finally {
    stopping = true;
    await Promise.all(slots.map((s) => stopApp(s.child)));
    await admin.disconnect().catch(() => undefined);
    await pool.end().catch(() => undefined);
    await drop().catch(() => undefined);
    await db.drop().catch(() => undefined);
  }
  const stamp = startedAt.toISOString().replace(/[:.]/g, '-');
  const file = join(ROOT, 'chaos', 'results', `${stamp}${quick ? '-quick' : ''}.json`);
  writeFileSync(file, JSON.stringify(report, null, 2) + '\n');
  log(
    `events ${String(report.events)}, kills ${String(report.kills)}, broker restarts ${String(report.brokerRestarts)}, ` +
      `Postgres restarts ${String(report.postgresRestarts)}: lost ${String(report.lost)}, duplicated ${String(report.duplicated)}, ` +
      `identical ${String(report.identical)} (${String(report.answersCompared)} answers), dead letters ${JSON.stringify(report.deadLetters)}`,
  );
  log(`${ok ? 'PASSED' : 'FAILED'}; report ${file}`);
  return ok;
}

/** Each answer's SHA-256 (a million events' answers do not need to be held twice). */
async function digests(
  reads: ActiveVersionPool,
  scope: { flags: string[]; projects: string[]; users: number[] },
): Promise<Map<string, string>> {
  const now = new Date(NOW);
  const answers = new Map<string, string>();
  const hash = (s: string) => createHash('sha256').update(s).digest('hex');
  for (let i = 0; i < scope.flags.length; i += 500) {
    const part = await allAnswers(reads, {
      flags: scope.flags.slice(i, i + 500),
      projects: [],
      users: [],
      now,
    });
    for (const [k, v] of part) answers.set(k, hash(v));
  }
  const rest = await allAnswers(reads, { flags: [], projects: scope.projects, users: scope.users, now });
  for (const [k, v] of rest) answers.set(k, hash(v));
  const identity = new IdentityReadModel(rowsVia(reads));
  const insights = new InsightsReadModel(rowsVia(reads), (p) => identity.countMembersOfProjects(p));
  answers.set('insights', hash(JSON.stringify(await insights.report(now))));
  return answers;
}

/**
 * Reads the whole topic back and checks each (partition, offset) landed in exactly one place: the event log
 * (its source position), the dead letters, or — a message whose id is stored at another position — a
 * re-delivery (a producer retry) that was rightly stored once. Everything generated must be stored.
 */
async function accountOffsets(
  kafka: Kafka,
  topic: string,
  high: Map<number, number>,
  pool: Pool,
  history: FlagEvent[],
) {
  const active = await activeSchema(pool);
  const stored = new Map<string, number>(); // "p:o" → id
  const storedIds = new Set<number>();
  const rows = await pool.query<{ id: string; p: number; o: string }>(
    `SELECT id, source_partition AS p, source_offset AS o FROM ${active}.event_log WHERE source_topic = $1`,
    [topic],
  );
  let duplicated = 0;
  for (const r of rows.rows) {
    if (storedIds.has(Number(r.id))) duplicated++;
    storedIds.add(Number(r.id));
    stored.set(`${r.p}:${r.o}`, Number(r.id));
  }
  const dl = await pool.query<{ p: number; o: string; reason_code: string; reason: string }>(
    `SELECT partition AS p, "offset" AS o, reason_code, reason FROM dead_letters WHERE topic = $1`,
    [topic],
  );
  const dead = new Set<string>();
  const byReason: Record<string, number> = {};
  let withoutReason = 0;
  for (const r of dl.rows) {
    const k = `${r.p}:${r.o}`;
    if (dead.has(k) || stored.has(k)) duplicated++;
    dead.add(k);
    byReason[r.reason_code] = (byReason[r.reason_code] ?? 0) + 1;
    if (!r.reason) withoutReason++;
  }

  // the topic, read back from the start
  let lost = 0;
  let redelivered = 0;
  let messages = 0;
  // poison messages as the topic holds them: a producer retry (a request the broker wrote, whose answer a broker
  // restart lost) puts some twice, each copy at its own offset and dead-lettered on its own
  let poisonInTopic = 0;
  const poisonKeys = new Set<string>();
  const remaining = new Map([...high.entries()].filter(([, h]) => h > 0));
  const consumer = kafka.consumer({ groupId: `chaos-audit-${Date.now()}`, maxBytes: 16 << 20 });
  await consumer.connect();
  await consumer.subscribe({ topic, fromBeginning: true });
  await new Promise<void>((resolve, reject) => {
    if (remaining.size === 0) return resolve();
    consumer
      .run({
        autoCommit: false,
        eachBatch: async ({ batch }) => {
          for (const m of batch.messages) {
            const o = Number(m.offset);
            if (o >= (high.get(batch.partition) ?? 0)) continue;
            messages++;
            const key = m.key?.toString() ?? '';
            if (key.startsWith('poison-')) {
              poisonInTopic++;
              poisonKeys.add(key);
            }
            const k = `${batch.partition}:${o}`;
            if (stored.has(k) || dead.has(k)) continue;
            const id = idOf(m.value);
            if (id !== null && storedIds.has(id)) redelivered++;
            else lost++;
          }
          const last = Number(batch.lastOffset());
          if (last >= (high.get(batch.partition) ?? 0) - 1) remaining.delete(batch.partition);
          if (remaining.size === 0) resolve();
        },
      })
      .catch(reject);
  });
  await consumer.disconnect();
  // every generated event stored (a message the producer never got into the topic would be lost too)
  for (const e of history) if (!storedIds.has(e.id)) lost++;
  return {
    messages,
    lost,
    duplicated,
    redelivered,
    deadLetters: { count: dl.rows.length, withoutReason, byReason },
    poison: { inTopic: poisonInTopic, distinct: poisonKeys.size },
  };
}

function idOf(value: Buffer | null): number | null {
  if (!value) return null;
  try {
    const v = JSON.parse(value.toString('utf8')) as { id?: unknown };
    return typeof v?.id === 'number' ? v.id : null;
  } catch {
    return null;
  }
}

main().catch((e) => {
  console.error('[chaos] failed:', e);
  process.exit(1);
});
