import { join } from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createTestDatabase, type TestDatabase } from '@flaglens/testing/support/test-database';
import { BROKERS, createTestTopic } from '@flaglens/testing/support/test-kafka';
import { testKafka } from '@flaglens/testing/support/test-kafka';
import { createToken, runCli } from '@flaglens/testing/support/cli';
import { freePort, httpGet } from '@flaglens/testing/support/http';
import { startApp, stopApp } from '@flaglens/testing/support/processes';
import { waitFor } from '@flaglens/testing/support/wait-for';
import { FreezingProxy } from '@flaglens/testing/support/freezing-proxy';

const SAMPLE = join(__dirname, 'fixtures', 'reference-sample', 'events.ndjson');

/**
 * Stale credentials (running apps, real Kafka and Postgres): the api learns of revocations through the
 * projector's change feed (LISTEN/NOTIFY on one connection). Here that connection goes through a proxy that
 * can freeze it, as a half-open connection would be.
 */
describe('revoked credentials stop working, even when the change feed is frozen', () => {
  let db: TestDatabase;
  let dropTopic: () => Promise<void>;
  let proxy: FreezingProxy;
  let env: Record<string, string>;
  let apiPort: number;
  const apps: ChildProcess[] = [];
  const logs: string[] = [];

  beforeAll(async () => {
    db = await createTestDatabase('credentials');
    const created = await createTestTopic(testKafka(), 'credentials');
    dropTopic = created.drop;
    proxy = new FreezingProxy();
    const proxyPort = await proxy.start();
    apiPort = await freePort();
    env = {
      DATABASE_URL: db.url,
      KAFKA_BROKERS: BROKERS,
      KAFKA_TOPIC: created.topic,
      KAFKA_GROUP_ID: `e2e-credentials-${randomBytes(3).toString('hex')}`,
      PORT: String(apiPort),
      PROJECTOR_PORT: String(await freePort()),
    };
    const viaProxy = new URL(db.url);
    viaProxy.port = String(proxyPort);
    apps.push(startApp('projector', env, logs));
    apps.push(startApp('api', { ...env, DATABASE_URL: viaProxy.toString() }, logs));
    await waitFor('api up', async () => (await httpGet(apiPort, '/health/live')).status === 200, {
      timeoutMs: 60000,
    });
    await runCli(env, ['publish', SAMPLE]);
    await waitFor(
      'sample projected',
      async () => Number((await db.query<{ n: string }>('SELECT count(*) AS n FROM event_log'))[0].n) === 101,
      { timeoutMs: 60000 },
    );
  });

  afterAll(async () => {
    for (const a of apps) await stopApp(a);
    await proxy?.stop();
    await dropTopic?.();
    await db?.drop();
  });

  const tokenId = async (): Promise<number> =>
    Number((await db.query<{ id: string }>('SELECT max(id) AS id FROM personal_access_tokens'))[0].id);

  /** Seconds from now until the token is refused. */
  async function secondsUntilRefused(token: string, limitMs: number): Promise<number> {
    const t0 = Date.now();
    await waitFor(
      'token refused',
      async () =>
        (await httpGet(apiPort, '/api/admin/user/profile', { authorization: token })).status === 401,
      { timeoutMs: limitMs, intervalMs: 50 },
    );
    return (Date.now() - t0) / 1000;
  }

  it('a revoked token is refused within 1 s while notices flow', async () => {
    const token = await createToken(env, '3');
    expect((await httpGet(apiPort, '/api/admin/user/profile', { authorization: token })).status).toBe(200);
    const id = await tokenId();
    await runCli(env, ['token', 'revoke', String(id)]);
    expect(await secondsUntilRefused(token, 5000)).toBeLessThanOrEqual(1);
  });

  it('with the listener connection frozen (no error, no data), a revoked token is refused within 30 s', async () => {
    const token = await createToken(env, '3');
    // cached: a second request is served without the database
    expect((await httpGet(apiPort, '/api/admin/user/profile', { authorization: token })).status).toBe(200);
    expect((await httpGet(apiPort, '/api/admin/user/profile', { authorization: token })).status).toBe(200);
    expect(proxy.freeze('flaglens-api-listener')).toBe(1);
    const id = await tokenId();
    await runCli(env, ['token', 'revoke', String(id)]);
    const seconds = await secondsUntilRefused(token, 35_000);
    expect(seconds).toBeLessThanOrEqual(30);
    // the frozen feed was noticed (its round trip failed) and every cache was dropped
    await waitFor('the loss is logged', async () => logs.join('').includes('change feed lost'), {
      timeoutMs: 10_000,
    });
    // and the feed comes back on a new connection: revocation is immediate again
    const next = await createToken(env, '3');
    await waitFor(
      'served again',
      async () => (await httpGet(apiPort, '/api/admin/user/profile', { authorization: next })).status === 200,
    );
    await new Promise((r) => setTimeout(r, 2000));
    await runCli(env, ['token', 'revoke', String(await tokenId())]);
    expect(await secondsUntilRefused(next, 5000)).toBeLessThanOrEqual(1);
  });
});
