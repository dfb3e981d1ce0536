import { spawn, type ChildProcess } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Kafka } from 'kafkajs';
import { createTestDatabase, TestDatabase } from '@flaglens/testing/support/test-database';
import {
  BROKERS,
  createTestTopic,
  produce,
  testGroup,
  testKafka,
} from '@flaglens/testing/support/test-kafka';
import { flagEvent, toMessage } from '@flaglens/testing/support/event-factory';
import { freePort, httpGet } from '@flaglens/testing/support/http';
import { waitFor } from '@flaglens/testing/support/wait-for';

const ROOT = join(__dirname, '..');

interface Run {
  script: string;
  child: ChildProcess;
  output: string[];
  exited: Promise<number | null>;
}

/** `npm run -s <script>` in `cwd`, a real process in a process group of its own (stopped whole by `stopGroup`). */
function npmRun(script: string, cwd = ROOT, env: Record<string, string> = {}): Run {
  const child = spawn('npm', ['run', '-s', script], {
    cwd,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  const output: string[] = [];
  const sink = (d: Buffer) => {
    output.push(d.toString());
    if (process.env.FLAGLENS_TEST_VERBOSE) process.stderr.write(`[${script}] ${d}`);
  };
  child.stdout?.on('data', sink);
  child.stderr?.on('data', sink);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { script, child, output, exited };
}

async function stopGroup(run: Run): Promise<void> {
  if (run.child.exitCode !== null || run.child.signalCode !== null) return;
  process.kill(-run.child.pid!, 'SIGTERM');
  const timer = setTimeout(() => process.kill(-run.child.pid!, 'SIGKILL'), 20000);
  await run.exited;
  clearTimeout(timer);
}

/**
 * Starting the apps as an operator or a process manager does: `npm run build` once, then `npm run start:api` and
 * `npm run start:projector` at the same moment. Starting never builds (scripts/build.sh is the one build step);
 * two builds at once wait for each other.
 */
describe('start: build once, then start the apps from it', () => {
  it('an app started with nothing built stops at once, naming the command to run', async () => {
    // a checkout with everything an app start needs (package.json, scripts/, the installed dependencies and the
    // project's Node) but no dist/
    const dir = mkdtempSync(join(tmpdir(), 'flaglens-unbuilt-'));
    try {
      for (const f of ['package.json', 'tsconfig.json', 'tsconfig.build.json'])
        cpSync(join(ROOT, f), join(dir, f));
      cpSync(join(ROOT, 'scripts'), join(dir, 'scripts'), { recursive: true });
      symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'));
      symlinkSync(join(ROOT, '.cache'), join(dir, '.cache'));
      for (const script of ['start:api', 'start:projector']) {
        const started = Date.now();
        const run = npmRun(script, dir);
        const code = await run.exited;
        expect(code).not.toBe(0);
        expect(run.output.join('')).toContain('run `npm run build` first');
        expect(Date.now() - started).toBeLessThan(15000);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  describe('two builds at once, then the api and the projector started at the same moment', () => {
    let kafka: Kafka;
    let db: TestDatabase;
    let topic: string;
    let dropTopic: () => Promise<void>;
    let port: number;
    let projectorPort: number;
    const apps: Run[] = [];

    beforeAll(async () => {
      kafka = testKafka();
      db = await createTestDatabase('start_e2e');
      ({ topic, drop: dropTopic } = await createTestTopic(kafka, 'start-e2e'));
      port = await freePort();
      projectorPort = await freePort();
    });

    afterAll(async () => {
      await Promise.all(apps.map(stopGroup));
      await dropTopic?.();
      await db?.drop();
    });

    it('both builds finish', async () => {
      const builds = [npmRun('build'), npmRun('build')];
      const codes = await Promise.all(builds.map((b) => b.exited));
      builds.forEach((b, i) =>
        expect({ code: codes[i], output: b.output.join('') }).toMatchObject({ code: 0 }),
      );
    });

    it('both apps come up and serve an event the projector stored', async () => {
      const env = {
        DATABASE_URL: db.url,
        KAFKA_BROKERS: BROKERS,
        KAFKA_TOPIC: topic,
        KAFKA_GROUP_ID: testGroup('start-e2e'),
        PORT: String(port),
        PROJECTOR_PORT: String(projectorPort),
        FLAGLENS_AUTH: 'off',
      };
      apps.push(npmRun('start:api', ROOT, env), npmRun('start:projector', ROOT, env));
      // an app that exits fails the test at once, with its output
      const exitedEarly = Promise.race(
        apps.map((a) =>
          a.exited.then((code) => {
            throw new Error(`${a.script} exited (${code}):\n${a.output.join('')}`);
          }),
        ),
      );
      exitedEarly.catch(() => undefined); // stopped by afterAll once up
      const ready = async (p: number) => (await httpGet(p, '/health/ready')).status === 200;
      await Promise.race([
        Promise.all([
          waitFor('api ready', () => ready(port), { timeoutMs: 90000 }),
          waitFor('projector ready', () => ready(projectorPort), { timeoutMs: 90000 }),
        ]),
        exitedEarly,
      ]);
      await produce(kafka, topic, [toMessage(flagEvent(1, 'start.flag', 0))]);
      await waitFor(
        'the event through both',
        async () => (await httpGet(port, '/api/admin/events/start.flag')).text.includes('"id":1'),
        { timeoutMs: 60000 },
      );
    });
  });
});
