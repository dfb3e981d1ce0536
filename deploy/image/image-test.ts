/**
 * `npm run image:test`: the image without a Docker engine. Builds the runtime tree by interpreting the
 * Dockerfile (dockerfile-emulator.ts), then runs each command the way the image runs it:
 *
 *   unshare --mount --pid --fork    a PID namespace: tini is PID 1, as in a container
 *   mount --bind <tree> /app        the tree at the image's paths (a private mount namespace)
 *   mount --bind <node> /usr/local/bin   the Node of the Dockerfile's `FROM node:<major>` where the official
 *                                   image has it (scripts/node-runtime.sh brings that major into .cache/)
 *   setpriv --reuid 1000 ...        the Dockerfile's USER (node = uid 1000), no capabilities
 *   env -i <image ENV + run env>    the image's environment only
 *   ENTRYPOINT + CMD                /usr/bin/tini -- /app/deploy/image/entrypoint.sh <command>
 *
 * For api, projector and connector: the HEALTHCHECK command (run inside the namespace) must pass, then
 * SIGTERM goes to PID 1 (as `docker stop` does) and the process tree must exit within 10 s; the projector,
 * stopped while it consumes a backlog, must have left its consumer group (no members right after). migrate
 * must apply the schema and exit 0. Prints the tree's size against node_modules and the SIGTERM times.
 * Needs root (namespaces), Postgres and Kafka (scripts/infra.sh up).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from 'pg';
import { createKafka } from '@flaglens/kafka';
import { createScratchUnleash, insertEvents } from '@flaglens/testing/scratch-unleash';
import { createTestTopic, produce } from '@flaglens/testing/support/test-kafka';
import { flagEvent, toMessage } from '@flaglens/testing/support/event-factory';
import { freePort, httpGet } from '@flaglens/testing/support/http';
import { waitFor } from '@flaglens/testing/support/wait-for';
import { buildImageTree, type ImageConfig } from './dockerfile-emulator';

const ROOT = join(__dirname, '..', '..');
const OUT = join(ROOT, '.run', 'image');
const BASE_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/flaglens';
const BROKERS = process.env.KAFKA_BROKERS ?? '127.0.0.1:9092';
const USERS: Record<string, number> = { node: 1000, root: 0 };
const STOP_LIMIT_MS = 10_000;
const LOAD_EVENTS = Number(process.env.IMAGE_TEST_EVENTS ?? 30_000);

const log = (m: string) => process.stdout.write(`[image-test] ${m}\n`);
const dbUrl = (name: string) => Object.assign(new URL(BASE_URL), { pathname: `/${name}` }).toString();
const du = (path: string) =>
  Number(spawnSync('du', ['-sb', path], { encoding: 'utf8' }).stdout.split('\t')[0]);
const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;

interface Container {
  command: string;
  /** The unshare process (host side). */
  outer: ChildProcess;
  output: string[];
  exited: Promise<{ code: number | null; signal: string | null }>;
  /** Host PID of the container's PID 1 (tini). */
  pid1(): number;
}

function check(ok: unknown, message: string): void {
  if (!ok) throw new Error(message);
  log(`ok: ${message}`);
}

/** The major of the base image's Node (`FROM node:24-bookworm-slim`: 24). */
function nodeMajor(image: ImageConfig): string {
  const major = /^node:(\d+)(-|$)/.exec(image.baseImage)?.[1];
  if (!major) throw new Error(`FROM ${image.baseImage}: expected an official node:<major>-... image`);
  return major;
}

/** The folder holding that major's `node`, mounted where the official image has it (/usr/local/bin). */
function nodeBin(image: ImageConfig): string {
  const r = spawnSync('bash', [join(ROOT, 'scripts', 'node-runtime.sh'), 'bin', nodeMajor(image)], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  if (r.status !== 0) throw new Error(`scripts/node-runtime.sh bin ${nodeMajor(image)} failed`);
  return r.stdout.trim();
}

/** Runs `command` (the CMD word) as the image would, with `env` as `docker run -e`. */
function run(image: ImageConfig, command: string[], env: Record<string, string>): Container {
  const uid = USERS[image.user];
  if (uid === undefined) throw new Error(`USER ${image.user}: unknown uid`);
  const envArgs = Object.entries({
    PATH: '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin',
    HOME: '/nonexistent',
    ...image.env,
    ...env,
  }).map(([k, v]) => `${k}=${v}`);
  const argv = [...image.entrypoint, ...command];
  // sh -c SCRIPT <tree> <node bin> <uid> <env...> <entrypoint + cmd...>: sh is PID 1 until it execs setpriv,
  // then tini
  const script =
    'mount --bind "$0" /app && mount --bind "$1" /usr/local/bin && uid="$2" && shift 2 && cd / && ' +
    'exec setpriv --reuid="$uid" --regid="$uid" --clear-groups --inh-caps=-all env -i "$@"';
  const outer = spawn(
    'unshare',
    [
      '--mount',
      '--pid',
      '--fork',
      '--mount-proc',
      'sh',
      '-c',
      script,
      join(image.root, 'app'),
      nodeBin(image),
      String(uid),
    ].concat(envArgs, argv),
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const output: string[] = [];
  const sink = (d: Buffer) => {
    output.push(d.toString());
    if (process.env.IMAGE_TEST_VERBOSE) process.stderr.write(`[${command[0]}] ${d}`);
  };
  outer.stdout!.on('data', sink);
  outer.stderr!.on('data', sink);
  const exited = new Promise<{ code: number | null; signal: string | null }>((resolve) =>
    outer.once('exit', (code, signal) => resolve({ code, signal })),
  );
  return {
    command: command[0],
    outer,
    output,
    exited,
    pid1: () => {
      const children = readFileSync(`/proc/${outer.pid}/task/${outer.pid}/children`, 'utf8')
        .trim()
        .split(/\s+/);
      return Number(children[0]);
    },
  };
}

/** The image's HEALTHCHECK command, run inside the container's namespaces as its user. */
function healthcheck(image: ImageConfig, c: Container, env: Record<string, string>): boolean {
  return inContainer(image, c, env, image.healthcheck).status === 0;
}

/** Runs `argv` inside the container's namespaces as its user, with the image's environment. */
function inContainer(image: ImageConfig, c: Container, env: Record<string, string>, argv: string[]) {
  const uid = String(USERS[image.user]);
  return spawnSync(
    'nsenter',
    [
      `--target=${c.pid1()}`,
      '--pid',
      '--mount',
      'setpriv',
      `--reuid=${uid}`,
      `--regid=${uid}`,
      '--clear-groups',
      'env',
      '-i',
      'PATH=/usr/local/bin:/usr/bin:/bin',
      ...Object.entries({ ...image.env, ...env }).map(([k, v]) => `${k}=${v}`),
      ...argv,
    ],
    { encoding: 'utf8', timeout: 10_000 },
  );
}

/** `docker stop`: SIGTERM to PID 1; how long until the whole tree has exited. */
async function stop(c: Container): Promise<{ ms: number; code: number | null; signal: string | null }> {
  const started = Date.now();
  process.kill(c.pid1(), 'SIGTERM');
  const timer = setTimeout(() => c.outer.kill('SIGKILL'), 30_000);
  const r = await c.exited;
  clearTimeout(timer);
  return { ms: Date.now() - started, ...r };
}

/** Node must be PID 1's direct child (tini -> node, no shell or npm between). */
function nodeIsChildOfPid1(c: Container): boolean {
  const tini = c.pid1();
  const children = readFileSync(`/proc/${tini}/task/${tini}/children`, 'utf8').trim().split(/\s+/);
  const exe = children.map((p) => readFileSync(`/proc/${p}/cmdline`, 'utf8').split('\0')[0]);
  return children.length === 1 && /(^|\/)node$/.test(exe[0]);
}

async function main(): Promise<void> {
  if (process.getuid?.() !== 0) throw new Error('run as root (user and PID namespaces, bind mounts)');
  mkdirSync('/app', { recursive: true }); // the bind mount's target (empty on the host)
  mkdirSync('/usr/local/bin', { recursive: true }); // the image's Node is mounted there

  const started = Date.now();
  // IMAGE_TEST_REUSE=1: the tree of the previous run, only re-read from the Dockerfile (while iterating)
  const reuse = process.env.IMAGE_TEST_REUSE === '1' && existsSync(OUT);
  const image = buildImageTree(ROOT, join(ROOT, 'Dockerfile'), OUT, (m) => log(`build: ${m}`), !reuse);
  log(`built the runtime tree in ${((Date.now() - started) / 1000).toFixed(0)} s`);
  for (const p of image.osPackages)
    check(spawnSync('sh', ['-c', `command -v ${p}`]).status === 0, `the OS package ${p} is on this machine`);
  check(image.entrypoint[0] === '/usr/bin/tini', 'ENTRYPOINT starts with tini');
  const tree = join(image.root, 'app');
  const treeSize = du(tree);
  const treeModules = du(join(tree, 'node_modules'));
  const devModules = du(join(ROOT, 'node_modules'));
  // (typescript itself stays: typeorm and cosmiconfig, production dependencies, depend on it)
  const devOnly = ['jest', 'eslint', '@nestjs/cli', 'ts-jest', 'autocannon', 'fast-check'];
  check(
    devOnly.every((d) => !existsSync(join(tree, 'node_modules', d))),
    `no dev dependency in the runtime (${devOnly.join(', ')})`,
  );
  check(
    !existsSync(join(tree, 'apps')) && !existsSync(join(tree, 'libs')),
    'no TypeScript sources in the runtime',
  );
  log(
    `SIZE runtime tree ${mb(treeSize)} (node_modules ${mb(treeModules)}, dist ${mb(du(join(tree, 'dist')))}) ` +
      `vs today's node_modules ${mb(devModules)}: ${((treeSize / devModules) * 100).toFixed(0)} %`,
  );

  const kafka = createKafka({ brokers: BROKERS, clientId: 'image-test', log: () => undefined });
  const { topic, drop } = await createTestTopic(kafka, 'image');
  const dbName = `flaglens_t_image_${Date.now().toString(36)}`;
  const [port, projectorPort, connectorPort] = [await freePort(), await freePort(), await freePort()];
  const group = `image-test-${Date.now().toString(36)}`;
  const env = {
    DATABASE_URL: dbUrl(dbName),
    KAFKA_BROKERS: BROKERS,
    KAFKA_TOPIC: topic,
    KAFKA_GROUP_ID: group,
    PORT: String(port),
    PROJECTOR_PORT: String(projectorPort),
    CONNECTOR_PORT: String(connectorPort),
    LOG_LEVEL: 'info',
  };
  const unleash = await createScratchUnleash('image');
  const results: string[] = [];
  try {
    // migrate: once, to completion
    const migrate = run(image, ['migrate'], env);
    const m = await migrate.exited;
    check(
      m.code === 0,
      `migrate exits 0 (${m.code ?? m.signal}): ${migrate.output.join('').trim().split('\n').pop()}`,
    );

    // projector: consumes a backlog; stopped in the middle of it
    await produce(
      kafka,
      topic,
      Array.from({ length: LOAD_EVENTS }, (_, i) => toMessage(flagEvent(i + 1, `image.flag-${i % 500}`, i))),
    );
    const projector = run(image, ['projector'], env);
    await waitFor('projector healthy', async () => healthcheck(image, projector, env));
    check(true, 'projector: HEALTHCHECK passes');
    check(nodeIsChildOfPid1(projector), 'projector: node is the direct child of PID 1 (tini)');
    const version = inContainer(image, projector, env, ['node', '--version']).stdout.trim();
    check(
      version === `v${process.versions.node}` && version.startsWith(`v${nodeMajor(image)}.`),
      `the container runs Node ${version}, the base image's major (${image.baseImage}) and the tests' Node`,
    );
    const ready = await waitFor('projector consuming', async () => {
      const r = await httpGet(projectorPort, '/metrics');
      const applied = /flaglens_projector_events_total\{[^}]*\} (\d+)/.exec(r.text);
      return r.status === 200 && applied !== null && Number(applied[1]) > 0;
    });
    check(ready, 'projector: /metrics answers from outside the container (bound to every interface)');
    const admin = kafka.admin();
    await admin.connect();
    const before = (await admin.describeGroups([group])).groups[0];
    check(before.members.length === 1, `projector: a member of ${group} while running`);
    const metrics = (await httpGet(projectorPort, '/metrics')).text;
    const applied = [...metrics.matchAll(/^flaglens_projector_events_total\{[^}]*\} (\d+)/gm)].reduce(
      (n, m) => n + Number(m[1]),
      0,
    );
    log(`projector: ${applied} of ${LOAD_EVENTS} events handled when SIGTERM is sent (a backlog remains)`);
    const p = await stop(projector);
    const after = (await admin.describeGroups([group])).groups[0];
    await admin.disconnect();
    results.push(
      `projector (under load: ${applied} of ${LOAD_EVENTS} events handled) SIGTERM -> exit ${p.ms} ms`,
    );
    check(p.ms < STOP_LIMIT_MS, `projector: exits ${p.ms} ms after SIGTERM (limit ${STOP_LIMIT_MS} ms)`);
    check(
      p.code === 0 || p.code === 143,
      `projector: exit status ${p.code} (0, or 143: Nest re-raises SIGTERM)`,
    );
    check(
      after.members.length === 0,
      `projector: left its consumer group (state ${after.state}, no members)`,
    );

    // api and connector: healthy, then a clean stop
    for (const [command, extra, healthPort] of [
      ['api', {}, port],
      ['connector', { UNLEASH_DATABASE_URL: unleash.url }, connectorPort],
    ] as const) {
      if (command === 'connector') await insertEvents(unleash.client, 50);
      const c = run(image, [command], { ...env, ...extra });
      await waitFor(`${command} healthy`, async () => healthcheck(image, c, { ...env, ...extra }));
      check(true, `${command}: HEALTHCHECK passes`);
      check(nodeIsChildOfPid1(c), `${command}: node is the direct child of PID 1 (tini)`);
      const r = await waitFor(`${command} ready`, async () => {
        const h = await httpGet(healthPort, '/health/ready');
        return h.status === 200 ? h : undefined;
      });
      check(r?.status === 200, `${command}: /health/ready answers 200 from outside the container`);
      const s = await stop(c);
      results.push(`${command} SIGTERM -> exit ${s.ms} ms`);
      check(s.ms < STOP_LIMIT_MS, `${command}: exits ${s.ms} ms after SIGTERM, status ${s.code}`);
      check(s.code === 0 || s.code === 143, `${command}: a clean exit status (${s.code})`);
    }
    // the default CMD is the api; an unknown command is refused
    check(JSON.stringify(image.cmd) === '["api"]', 'CMD defaults to api');
    const bad = run(image, ['nonsense'], env);
    check((await bad.exited).code === 64, 'an unknown command exits 64 with a message');
    for (const r of results) log(`TIME ${r}`);
    log(`passed in ${((Date.now() - started) / 1000).toFixed(0)} s`);
  } finally {
    await unleash.drop();
    await drop();
    const c = new Client({ connectionString: dbUrl('postgres') });
    await c.connect();
    await c.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
    await c.end();
  }
}

void main().then(
  () => process.exit(0),
  (e: Error) => {
    process.stderr.write(`[image-test] FAILED: ${e.message}\n`);
    process.exit(1);
  },
);
