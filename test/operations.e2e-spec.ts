import type { ChildProcess } from 'node:child_process';
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
import { apiGet } from '@flaglens/testing/support/openapi';
import { startApp, stopApp } from '@flaglens/testing/support/processes';
import { waitFor } from '@flaglens/testing/support/wait-for';

/** Sum of the samples of `name` whose labels include `labels` (label order does not matter). */
function sample(text: string, name: string, labels: Record<string, string>): number {
  return text
    .split('\n')
    .filter((l) => l.startsWith(`${name}{`))
    .filter((l) => Object.entries(labels).every(([k, v]) => l.includes(`${k}="${v}"`)))
    .reduce((n, l) => n + Number(l.slice(l.lastIndexOf(' ') + 1)), 0);
}

/** Metrics, health and logs of the running apps (real Kafka and Postgres). */
describe('operations: /metrics, /health, JSON logs (running apps)', () => {
  let kafka: Kafka;
  let db: TestDatabase;
  let topic: string;
  let dropTopic: () => Promise<void>;
  let api: ChildProcess;
  let projector: ChildProcess;
  let port: number;
  let projectorPort: number;
  const logs: string[] = [];
  const TOKEN = 'metrics-token-for-the-e2e-test';
  const bearer = { authorization: `Bearer ${TOKEN}` };

  beforeAll(async () => {
    kafka = testKafka();
    db = await createTestDatabase('ops_e2e');
    ({ topic, drop: dropTopic } = await createTestTopic(kafka, 'ops-e2e'));
    port = await freePort();
    projectorPort = await freePort();
    const env = {
      DATABASE_URL: db.url,
      KAFKA_BROKERS: BROKERS,
      KAFKA_TOPIC: topic,
      KAFKA_GROUP_ID: testGroup('ops-e2e'),
      PORT: String(port),
      PROJECTOR_PORT: String(projectorPort),
      METRICS_TOKEN: TOKEN,
      FLAGLENS_AUTH: 'off',
    };
    projector = startApp('projector', env, logs);
    api = startApp('api', env, logs);
    await produce(kafka, topic, [
      ...Array.from({ length: 20 }, (_, i) => toMessage(flagEvent(i + 1, 'ops.flag', i))),
      { key: 'ops.flag', value: '{"id": 99, "type": ' },
    ]);
    await waitFor('api up', async () => (await httpGet(port, '/health/live')).status === 200, {
      timeoutMs: 60000,
    });
    await waitFor(
      'projector ready',
      async () => (await httpGet(projectorPort, '/health/ready')).status === 200,
      {
        timeoutMs: 60000,
      },
    );
    await waitFor('projected', async () => (await db.query('SELECT id FROM event_log')).length === 20);
  });

  afterAll(async () => {
    await Promise.all([api && stopApp(api), projector && stopApp(projector)]);
    await dropTopic?.();
    await db?.drop();
  });

  it('api: ready with Postgres and the active version; liveness stays compatible', async () => {
    const live = await httpGet(port, '/health/live');
    expect(live.status).toBe(200);
    expect(live.json()).toMatchObject({ status: 'ok' });
    const ready = await httpGet(port, '/health/ready');
    expect(ready.status).toBe(200);
    expect(ready.json()).toMatchObject({
      status: 'ok',
      details: { postgres: { status: 'up' }, projection: { status: 'up', version: 1 } },
    });
  });

  it('api: request timings by route pattern and status, behind the metrics token', async () => {
    expect((await apiGet(port, '/api/admin/events/ops.flag')).status).toBe(200);
    expect((await apiGet(port, '/api/admin/events/another-raw-name')).status).toBe(200);
    expect((await httpGet(port, '/no/such/path')).status).toBe(404);
    expect((await httpGet(port, '/metrics')).status).toBe(401);
    const m = await httpGet(port, '/metrics', bearer);
    expect(m.status).toBe(200);
    expect(
      sample(m.text, 'flaglens_http_request_duration_seconds_count', {
        app: 'api',
        method: 'GET',
        route: '/api/admin/events/:featureName',
        status_code: '200',
      }),
    ).toBe(2);
    expect(
      sample(m.text, 'flaglens_http_request_duration_seconds_count', {
        route: 'unmatched',
        status_code: '404',
      }),
    ).toBe(1);
    expect(m.text).not.toContain('another-raw-name');
  });

  it('projector: events by outcome, dead letters by reason, lag 0 with its labels', async () => {
    await waitFor('lag 0 on every partition', async () => {
      const m = await httpGet(projectorPort, '/metrics', bearer);
      const lags = m.text
        .split('\n')
        .filter((l) => l.startsWith('flaglens_projector_consumer_lag_messages{'));
      return lags.length === 6 && lags.every((l) => l.endsWith(' 0'));
    });
    const text = (await httpGet(projectorPort, '/metrics', bearer)).text;
    expect(sample(text, 'flaglens_dead_letters_total', { reason: 'malformed-json' })).toBe(1);
    expect(
      sample(text, 'flaglens_projector_events_total', { type: 'unknown', outcome: 'dead_lettered' }),
    ).toBe(1);
    expect(sample(text, 'flaglens_projector_events_total', { outcome: 'stored' })).toBe(20);
    const ready = (await httpGet(projectorPort, '/health/ready')).json();
    expect(ready).toMatchObject({
      status: 'ok',
      details: { postgres: { status: 'up' }, consumer: { status: 'up' }, progress: { status: 'up', lag: 0 } },
    });
  });

  it('logs are JSON lines; the dead letter names topic, partition and offset', () => {
    const lines = logs
      .join('')
      .split('\n')
      .filter((l) => l.startsWith('{'));
    expect(lines.length).toBeGreaterThan(0);
    const parsed = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    const dead = parsed.find((l) => typeof l.msg === 'string' && l.msg.startsWith('dead-lettered'));
    expect(dead).toMatchObject({
      topic,
      partition: expect.any(Number),
      offset: expect.any(Number),
      reasonCode: 'malformed-json',
    });
    expect(logs.join('')).not.toContain(TOKEN);
  });
});
