import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ChildProcess } from 'node:child_process';
import type { Kafka } from 'kafkajs';
import { generateHistory, validateInsights } from '@flaglens/projections';
import { createToken, runCli } from './support/cli';
import { createTestDatabase, TestDatabase } from './support/test-database';
import { BROKERS, createTestTopic, testKafka } from './support/test-kafka';
import { freePort, httpGet } from './support/http';
import { startApp, stopApp } from './support/processes';
import { waitFor } from './support/wait-for';

const PINNED = '2026-06-01T12:00:00.000Z';

describe('GET /api/admin/insights and /api/admin/dashboard/executive (running apps, real Kafka and Postgres)', () => {
  let kafka: Kafka;
  let db: TestDatabase;
  let dropTopic: () => Promise<void>;
  let api: ChildProcess;
  let projector: ChildProcess;
  let port: number;
  let asAdmin: Record<string, string>;
  const logs: string[] = [];
  const history = generateHistory({
    seed: 9,
    projects: 3,
    flagsPerProject: 20,
    events: 800,
    weeks: 26,
    end: PINNED,
  });

  beforeAll(async () => {
    kafka = testKafka();
    db = await createTestDatabase('insights_e2e');
    let topic: string;
    ({ topic, drop: dropTopic } = await createTestTopic(kafka, 'insights-e2e'));
    port = await freePort();
    const env = {
      DATABASE_URL: db.url,
      KAFKA_BROKERS: BROKERS,
      KAFKA_TOPIC: topic,
      KAFKA_GROUP_ID: 'e2e',
      PORT: String(port),
      PROJECTOR_PORT: String(await freePort()),
      FLAGLENS_CLOCK: PINNED,
    };
    projector = startApp('projector', env, logs);
    api = startApp('api', env, logs);
    const file = join(tmpdir(), `insights-e2e-${process.pid}.ndjson`);
    writeFileSync(file, history.map((e) => JSON.stringify(e)).join('\n') + '\n');
    await runCli(env, ['publish', file]);
    await waitFor(
      'history projected',
      async () =>
        Number((await db.query<{ n: string }>('SELECT count(*) AS n FROM event_log'))[0].n) ===
        history.length,
      { timeoutMs: 90000 },
    );
    asAdmin = { authorization: await createToken(env, 'admin') };
    await waitFor('api up', async () => (await httpGet(port, '/health/live')).status === 200, {
      timeoutMs: 60000,
    });
  });

  afterAll(async () => {
    await Promise.all([api && stopApp(api), projector && stopApp(projector)]);
    await dropTopic?.();
    await db?.drop();
  });

  it('needs a token', async () => {
    expect((await httpGet(port, '/api/admin/insights')).status).toBe(401);
  });

  it('the deprecated report: 200 JSON, every week, api-spec 2.13, deprecation headers', async () => {
    const res = await httpGet(port, '/api/admin/dashboard/executive', asAdmin);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.headers['deprecation']).toBe('true');
    expect(res.headers['link']).toBe('</api/admin/insights>; rel="successor-version"');
    const body = res.json() as Record<string, unknown[]>;
    expect(validateInsights(body)).toEqual([]);
    expect(body.flagTrends.length).toBeGreaterThanOrEqual(26);
    expect(body.projectFlagTrends.length).toBeGreaterThan(26);
    expect(body.flagTrends.at(-1)).toMatchObject({ date: '2026-06-01T23:59:59.999Z' });
    // same body as the successor without a range
    expect((await httpGet(port, '/api/admin/insights?from=&to=', asAdmin)).text).toBe(res.text);
  });

  it('a range selects weeks by date; a malformed date is 400 BadDataError', async () => {
    const res = await httpGet(port, '/api/admin/insights?from=2026-05-01&to=2026-05-31', asAdmin);
    expect(res.status).toBe(200);
    const body = res.json() as { flagTrends: { date: string }[] };
    expect(body.flagTrends.map((r) => r.date)).toEqual([
      '2026-05-03T23:59:59.999Z',
      '2026-05-10T23:59:59.999Z',
      '2026-05-17T23:59:59.999Z',
      '2026-05-24T23:59:59.999Z',
      '2026-05-31T23:59:59.999Z',
    ]);
    const bad = await httpGet(port, '/api/admin/insights?from=2026-13-01', asAdmin);
    expect(bad.status).toBe(400);
    expect(bad.json()).toMatchObject({ name: 'BadDataError' });
  });
});
