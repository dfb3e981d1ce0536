import type { ChildProcess } from 'node:child_process';
import { createTestDatabase, TestDatabase } from '@flaglens/testing/support/test-database';
import { freePort, httpGet } from '@flaglens/testing/support/http';
import { startApp, stopApp } from '@flaglens/testing/support/processes';
import { tcpProxy, type TcpProxy } from '@flaglens/testing/support/tcp-proxy';
import { waitFor } from '@flaglens/testing/support/wait-for';

/** The api's health endpoints as an unauthenticated caller sees them (the running app, real Postgres). */
describe('api health (running app)', () => {
  let db: TestDatabase;
  let api: ChildProcess | undefined;
  let proxy: TcpProxy | undefined;
  let logs: string[];

  beforeEach(async () => {
    db = await createTestDatabase('health_e2e');
    logs = [];
  });

  afterEach(async () => {
    if (api) await stopApp(api);
    api = undefined;
    await proxy?.close();
    proxy = undefined;
    await db.drop();
  });

  it('/health/ready with Postgres unreachable: 503 with a generic reason, the database error only in the log', async () => {
    const pg = new URL(db.url);
    proxy = await tcpProxy(Number(pg.port || 5432));
    pg.port = String(proxy.port);
    const port = await freePort();
    api = startApp('api', { DATABASE_URL: pg.toString(), PORT: String(port), LOG_LEVEL: 'info' }, logs);
    await waitFor('api ready', async () => (await httpGet(port, '/health/ready')).status === 200, {
      timeoutMs: 60000,
    });

    await proxy.close(); // every connection reset; nothing listens at that port any more
    const r = await waitFor(
      'not ready',
      async () => {
        const x = await httpGet(port, '/health/ready');
        return x.status === 503 ? x : undefined;
      },
      { timeoutMs: 30000 },
    );
    expect(r!.json()).toMatchObject({
      status: 'error',
      error: {
        postgres: { status: 'down', message: 'database unreachable' },
        projection: { status: 'down', message: 'database unreachable' },
      },
    });
    expect(r!.text).not.toMatch(/ECONN|refused|terminated|timeout|127\.0\.0\.1|::1|\bconnect\b/i);
    expect(r!.text).not.toContain(String(proxy.port));
    // the operator finds the cause in the log
    await waitFor('the cause logged', async () =>
      logs.join('').includes(`database health check failed: connect ECONNREFUSED 127.0.0.1:${proxy!.port}`),
    );
  });
});
