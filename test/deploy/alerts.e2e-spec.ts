import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from 'pg';
import { flagEvent, toMessage } from '@flaglens/testing/support/event-factory';
import { freePort } from '@flaglens/testing/support/http';
import { startStack, type Stack } from '@flaglens/testing/support/stack';
import { activeSchema } from '@flaglens/testing/support/test-database';
import { produce } from '@flaglens/testing/support/test-kafka';
import { waitFor } from '@flaglens/testing/support/wait-for';

const ROOT = join(__dirname, '..', '..');
const RULES = join(ROOT, 'ops', 'prometheus', 'alerts.yml');
const RUN = join(ROOT, '.run', 'test-prometheus');
/** The rules' durations, divided by this, so minutes of a real stall take seconds here. */
const TIME_SCALE = 20;

/** ops/prometheus/alerts.yml with every duration (`[5m]`, `offset 10m`, `for: 1m`) divided by TIME_SCALE. */
function scaledRules(text: string): string {
  const scale = (n: string, unit: string) =>
    `${Math.max(1, Math.round((Number(n) * (unit === 'm' ? 60 : 1)) / TIME_SCALE))}s`;
  return text
    .replace(/\[(\d+)([ms])\]/g, (_, n: string, u: string) => `[${scale(n, u)}]`)
    .replace(/offset (\d+)([ms])\b/g, (_, n: string, u: string) => `offset ${scale(n, u)}`)
    .replace(/for: (\d+)([ms])\b/g, (_, n: string, u: string) => `for: ${scale(n, u)}`);
}

interface Alert {
  labels: Record<string, string>;
  state: 'pending' | 'firing';
}

/**
 * The alert rules in a real Prometheus (Debian's package), scraping a real projector that is stalled on
 * purpose: a transaction of the test holds a lock on the event log, so the projector's batches wait while
 * new events arrive. FlaglensPartitionStalled must fire, for the partitions that have new events.
 */
describe('alert rules in a real Prometheus: a stalled projector fires FlaglensPartitionStalled', () => {
  let stack: Stack;
  let prometheus: ChildProcess;
  let api: string;
  let locker: Client | undefined;
  const output: string[] = [];

  beforeAll(async () => {
    if (spawnSync('sh', ['-c', 'command -v prometheus']).status !== 0)
      throw new Error(
        'prometheus is not installed: apt-get install prometheus (npm run deploy:check installs it as root)',
      );
    stack = await startStack('alerts', { PROJECTOR_STALL_SECONDS: '5' });
    rmSync(RUN, { recursive: true, force: true });
    mkdirSync(RUN, { recursive: true });
    writeFileSync(join(RUN, 'alerts.yml'), scaledRules(readFileSync(RULES, 'utf8')));
    writeFileSync(
      join(RUN, 'prometheus.yml'),
      [
        'global: { scrape_interval: 1s, evaluation_interval: 1s }',
        'rule_files: [alerts.yml]',
        'scrape_configs:',
        '  - job_name: flaglens-projector',
        `    static_configs: [{ targets: ['127.0.0.1:${stack.env.PROJECTOR_PORT}'] }]`,
        '',
      ].join('\n'),
    );
    const port = await freePort();
    api = `http://127.0.0.1:${port}`;
    prometheus = spawn(
      'prometheus',
      [
        `--config.file=${join(RUN, 'prometheus.yml')}`,
        `--storage.tsdb.path=${join(RUN, 'data')}`,
        `--web.listen-address=127.0.0.1:${port}`,
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    prometheus.stderr!.on('data', (d: Buffer) => output.push(d.toString()));
    await waitFor('prometheus ready', async () => (await fetch(`${api}/-/ready`).catch(() => null))?.ok, {
      timeoutMs: 30000,
    });
  });

  afterAll(async () => {
    await locker?.end().catch(() => undefined);
    if (prometheus && prometheus.exitCode === null) {
      const exited = new Promise((r) => prometheus.once('exit', r));
      prometheus.kill('SIGTERM');
      await exited;
    }
    await stack?.stop();
    rmSync(RUN, { recursive: true, force: true });
  });

  const alerts = async (): Promise<Alert[]> =>
    ((await (await fetch(`${api}/api/v1/alerts`)).json()) as { data: { alerts: Alert[] } }).data.alerts;

  it('loads every rule', async () => {
    const r = (await (await fetch(`${api}/api/v1/rules`)).json()) as {
      data: { groups: { rules: { name: string; health: string }[] }[] };
    };
    const rules = r.data.groups.flatMap((g) => g.rules);
    expect(rules.map((x) => x.name)).toEqual(
      expect.arrayContaining([
        'FlaglensPartitionStalled',
        'FlaglensConsumerLagGrowing',
        'FlaglensNewDeadLetters',
        'FlaglensUnknownEventTypes',
      ]),
    );
  });

  it('fires FlaglensPartitionStalled while the projector cannot write, and not before', async () => {
    // events on every partition, applied: each partition has a last event
    const flags = Array.from({ length: 60 }, (_, i) => `alerts.flag-${i}`);
    await produce(
      stack.kafka,
      stack.topic,
      flags.map((f, i) => toMessage(flagEvent(i + 1, f, i))),
    );
    await stack.waitForEvents(flags.length);
    await waitFor('the projector scraped', async () => {
      const r = (await (await fetch(`${api}/api/v1/query?query=up`)).json()) as {
        data: { result: { value: [number, string] }[] };
      };
      return r.data.result[0]?.value[1] === '1';
    });
    await new Promise((r) => setTimeout(r, 5000));
    expect((await alerts()).filter((a) => a.labels.alertname === 'FlaglensPartitionStalled')).toEqual([]);

    // the stall: a transaction holds the event log; new events wait behind it
    locker = new Client({ connectionString: stack.db.url });
    await locker.connect();
    await locker.query('BEGIN');
    await locker.query(`LOCK TABLE ${await activeSchema(locker)}.event_log IN EXCLUSIVE MODE`);
    await produce(
      stack.kafka,
      stack.topic,
      flags.map((f, i) => toMessage(flagEvent(1000 + i, f, 100 + i))),
    );
    const firing = await waitFor(
      'FlaglensPartitionStalled firing',
      async () => {
        const stalled = (await alerts()).filter(
          (a) => a.labels.alertname === 'FlaglensPartitionStalled' && a.state === 'firing',
        );
        return stalled.length > 0 ? stalled : undefined;
      },
      { timeoutMs: 90000, intervalMs: 1000 },
    );
    expect(firing![0].labels).toMatchObject({ consumergroup: stack.env.KAFKA_GROUP_ID, topic: stack.topic });
    expect(firing![0].labels.partition).toMatch(/^\d+$/);
    // the projector answers its scrapes all along: the "no members" alert stays quiet
    expect((await alerts()).some((a) => a.labels.alertname === 'FlaglensConsumerGroupEmpty')).toBe(false);

    // released: the projector catches up and the alert resolves
    await locker.query('ROLLBACK');
    await stack.waitForEvents(flags.length * 2);
    await waitFor(
      'FlaglensPartitionStalled resolved',
      async () => !(await alerts()).some((a) => a.labels.alertname === 'FlaglensPartitionStalled'),
      { timeoutMs: 60000, intervalMs: 1000 },
    );
  });
});
