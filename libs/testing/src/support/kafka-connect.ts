import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import {
  createWriteStream,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { freePort } from './http';
import { waitFor } from './wait-for';

const ROOT = join(__dirname, '..', '..', '..', '..');
/**
 * The Kafka Connect release of the worker: 3.9.1, whichever broker runs (scripts/infra.sh's KAFKA_VERSION, 4.4.0
 * by default: a 3.9 worker's Java clients talk to a 4.x broker). Its logging is reload4j's (log4j.properties
 * below); Connect 4.x would need log4j2's.
 */
export const KAFKA_VERSION = process.env.KAFKA_CONNECT_VERSION ?? '3.9.1';
/** The Maven project that brings the worker's and Debezium's jars (infra/connect/pom.xml). */
export const CONNECT_POM = join(ROOT, 'infra', 'connect', 'pom.xml');
const LIBS = join(ROOT, '.cache', 'connect', `libs-${KAFKA_VERSION}`);
const PLUGINS = join(ROOT, '.cache', 'connect', 'plugins');
const DEBEZIUM = join(PLUGINS, 'debezium-postgres');

/**
 * Fetches Kafka Connect (connect-runtime of our Kafka version) and the Debezium Postgres connector from Maven
 * Central into .cache/connect/ (infra/connect/pom.xml), unless they are there.
 */
export function fetchConnectJars(log: (m: string) => void = () => undefined): void {
  const mvn = (profile: string, out: string, extra: string[] = []) => {
    const tmp = `${out}.tmp.${process.pid}`;
    rmSync(tmp, { recursive: true, force: true });
    execFileSync(
      'mvn',
      [
        '-q',
        '-B',
        '-Dstyle.color=never',
        '-f',
        CONNECT_POM,
        '-P',
        profile,
        `-Dkafka.version=${KAFKA_VERSION}`,
        'dependency:copy-dependencies',
        `-DoutputDirectory=${tmp}`,
        ...extra,
      ],
      { stdio: ['ignore', 'ignore', 'inherit'] },
    );
    rmSync(out, { recursive: true, force: true });
    renameSync(tmp, out);
  };
  mkdirSync(PLUGINS, { recursive: true });
  if (!existsSync(join(LIBS, `connect-runtime-${KAFKA_VERSION}.jar`))) {
    log(`fetching Kafka Connect ${KAFKA_VERSION} from Maven Central`);
    mvn('runtime', LIBS);
  }
  if (!readdirSafe(DEBEZIUM).some((f) => f.startsWith('debezium-connector-postgres-'))) {
    log('fetching the Debezium Postgres connector from Maven Central');
    // the worker provides Kafka's own jars and the logging binding
    mvn('debezium', DEBEZIUM, ['-DexcludeGroupIds=org.apache.kafka,org.slf4j']);
  }
}

function readdirSafe(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

export interface ConnectWorker {
  /** http://127.0.0.1:<port>: Connect's REST API. */
  url: string;
  dir: string;
  /** Creates (or updates) a connector from its JSON config; waits until its task runs. */
  putConnector(name: string, config: Record<string, string>): Promise<void>;
  /** The connector's and its tasks' states. */
  status(name: string): Promise<{ connector: string; tasks: string[] }>;
  /** Kills the worker (SIGKILL: no offset flush, no graceful leave), then starts it again. */
  kill(): Promise<void>;
  start(): Promise<void>;
  /** Stops the worker (SIGTERM) and deletes its folder. */
  stop(): Promise<void>;
  log(): string;
}

async function rest(url: string, method: string, body?: unknown): Promise<{ status: number; json: unknown }> {
  const r = await fetch(url, {
    method,
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await r.text();
  let json: unknown = null;
  try {
    json = JSON.parse(text);
  } catch {
    json = text;
  }
  return { status: r.status, json };
}

/**
 * One Kafka Connect worker in distributed mode (its config, offsets and status in Kafka topics of its own
 * group), with the Debezium plugin on its plugin path, the REST API on a free loopback port, state under `dir`.
 */
export async function startConnectWorker(
  dir: string,
  opts: { brokers: string; groupId: string; heap?: string },
): Promise<ConnectWorker> {
  fetchConnectJars();
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const port = await freePort();
  const g = opts.groupId;
  const props = [
    `bootstrap.servers=${opts.brokers}`,
    `group.id=${g}`,
    `config.storage.topic=${g}.configs`,
    `offset.storage.topic=${g}.offsets`,
    `status.storage.topic=${g}.status`,
    'config.storage.replication.factor=1',
    'offset.storage.replication.factor=1',
    'status.storage.replication.factor=1',
    'offset.storage.partitions=1',
    'status.storage.partitions=1',
    'key.converter=org.apache.kafka.connect.json.JsonConverter',
    'value.converter=org.apache.kafka.connect.json.JsonConverter',
    // Debezium's source offsets (the LSN confirmed) are flushed this often; a kill loses at most this much
    // progress, re-sent on restart (the projector stores an event id once)
    'offset.flush.interval.ms=1000',
    `plugin.path=${PLUGINS}`,
    `listeners=http://127.0.0.1:${port}`,
    'rest.advertised.host.name=127.0.0.1',
    `rest.advertised.port=${port}`,
    'topic.creation.enable=true',
    'scheduled.rebalance.max.delay.ms=5000',
  ];
  const propsFile = join(dir, 'worker.properties');
  writeFileSync(propsFile, props.join('\n') + '\n');
  writeFileSync(
    join(dir, 'log4j.properties'),
    [
      'log4j.rootLogger=INFO, stdout',
      'log4j.appender.stdout=org.apache.log4j.ConsoleAppender',
      'log4j.appender.stdout.layout=org.apache.log4j.PatternLayout',
      'log4j.appender.stdout.layout.ConversionPattern=[%d] %p %m (%c)%n',
      'log4j.logger.org.reflections=ERROR',
      'log4j.logger.org.apache.kafka.clients=WARN',
      'log4j.logger.org.apache.kafka.common=WARN',
    ].join('\n') + '\n',
  );
  const logFile = join(dir, 'connect.log');
  const url = `http://127.0.0.1:${port}`;
  let child: ChildProcess | null = null;

  const start = async () => {
    const out = createWriteStream(logFile, { flags: 'a' });
    await new Promise((r) => out.once('open', r));
    child = spawn(
      'java',
      [
        ...(opts.heap ?? '-Xms128m -Xmx512m').split(' '),
        '-XX:+UseSerialGC',
        '-XX:TieredStopAtLevel=1',
        `-Dlog4j.configuration=file:${join(dir, 'log4j.properties')}`,
        '-cp',
        `${LIBS}/*`,
        'org.apache.kafka.connect.cli.ConnectDistributed',
        propsFile,
      ],
      { stdio: ['ignore', out, out] },
    );
    const c = child;
    await waitFor(
      'the Connect worker answering',
      async () => {
        if (c.exitCode !== null) throw new Error(`Connect exited (${c.exitCode}):\n${tail()}`);
        try {
          return (await rest(`${url}/connectors`, 'GET')).status === 200;
        } catch {
          return false;
        }
      },
      { timeoutMs: 120_000, intervalMs: 250 },
    );
  };
  const tail = () => {
    try {
      return readFileSync(logFile, 'utf8').split('\n').slice(-40).join('\n');
    } catch {
      return '';
    }
  };
  const stopChild = async (signal: NodeJS.Signals) => {
    const c = child;
    if (!c || c.exitCode !== null || c.signalCode !== null) return;
    const exited = new Promise((r) => c.once('exit', r));
    c.kill(signal);
    const t = setTimeout(() => c.kill('SIGKILL'), 20_000);
    await exited;
    clearTimeout(t);
  };
  const status = async (name: string) => {
    const r = await rest(`${url}/connectors/${name}/status`, 'GET');
    const s = r.json as { connector?: { state: string }; tasks?: { state: string; trace?: string }[] };
    return {
      connector: s.connector?.state ?? `HTTP ${r.status}`,
      tasks: (s.tasks ?? []).map((t) => t.state),
    };
  };
  await start();
  return {
    url,
    dir,
    start,
    status,
    putConnector: async (name, config) => {
      const r = await rest(`${url}/connectors/${name}/config`, 'PUT', config);
      if (r.status >= 300) throw new Error(`PUT connector ${name}: ${r.status} ${JSON.stringify(r.json)}`);
      await waitFor(
        `connector ${name} running`,
        async () => {
          const s = await status(name);
          if (s.tasks.includes('FAILED')) {
            const full = await rest(`${url}/connectors/${name}/status`, 'GET');
            throw new Error(`connector ${name} failed: ${JSON.stringify(full.json).slice(0, 2000)}`);
          }
          return s.connector === 'RUNNING' && s.tasks.length > 0 && s.tasks.every((t) => t === 'RUNNING');
        },
        { timeoutMs: 120_000, intervalMs: 250 },
      );
    },
    kill: async () => {
      await stopChild('SIGKILL');
    },
    stop: async () => {
      await stopChild('SIGTERM');
      rmSync(dir, { recursive: true, force: true });
    },
    log: tail,
  };
}
