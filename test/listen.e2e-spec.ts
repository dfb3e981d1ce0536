import type { ChildProcess } from 'node:child_process';
import { lookup } from 'node:dns/promises';
import { connect } from 'node:net';
import { networkInterfaces } from 'node:os';
import { createTestDatabase, TestDatabase } from '@flaglens/testing/support/test-database';
import { freePort, httpGet } from '@flaglens/testing/support/http';
import { startApp, stopApp } from '@flaglens/testing/support/processes';
import { waitFor } from '@flaglens/testing/support/wait-for';

/** Whether a TCP connection to host:port is accepted. */
function accepts(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = connect({ host, port, timeout: 3000 });
    s.once('connect', () => {
      s.destroy();
      resolve(true);
    });
    s.once('error', () => resolve(false));
    s.once('timeout', () => {
      s.destroy();
      resolve(false);
    });
  });
}

/** This machine's addresses other than loopback (link-local IPv6 left out: it needs a scope). */
const outside = Object.values(networkInterfaces())
  .flatMap((list) => list ?? [])
  .filter((a) => !a.internal && !a.address.startsWith('fe80:'))
  .map((a) => a.address);

/** Where the api listens (the running app): with authentication off, on loopback only. */
describe('api listen address (running app)', () => {
  let db: TestDatabase;
  let api: ChildProcess | undefined;

  beforeAll(async () => {
    db = await createTestDatabase('listen_e2e');
  });

  afterEach(async () => {
    if (api) await stopApp(api);
    api = undefined;
  });

  afterAll(async () => {
    await db.drop();
  });

  async function startApi(auth: 'on' | 'off', logs: string[]): Promise<number> {
    const port = await freePort();
    api = startApp('api', { DATABASE_URL: db.url, PORT: String(port), FLAGLENS_AUTH: auth }, logs);
    await waitFor('api up', async () => (await httpGet(port, '/health/live')).status === 200, {
      timeoutMs: 60000,
    });
    return port;
  }

  it('the machine has an address besides loopback to try', () => {
    expect(outside.length).toBeGreaterThan(0);
  });

  it('FLAGLENS_AUTH=off: answers on loopback only (what localhost resolves to), and says so in the log', async () => {
    const logs: string[] = [];
    const port = await startApi('off', logs);
    const loopback = (await lookup('localhost', { all: true })).map((a) => a.address);
    expect(loopback).toContain('127.0.0.1');
    for (const address of loopback) expect([address, await accepts(address, port)]).toEqual([address, true]);
    for (const address of outside) expect([address, await accepts(address, port)]).toEqual([address, false]);
    if (!loopback.includes('::1')) expect(await accepts('::1', port)).toBe(false);
    const line = logs
      .join('')
      .split('\n')
      .find((l) => l.includes('FLAGLENS_AUTH=off'));
    expect(line).toContain(`loopback only (127.0.0.1:${port}`);
  });

  it('FLAGLENS_AUTH=on (the default): answers on every interface', async () => {
    const port = await startApi('on', []);
    expect(await accepts('127.0.0.1', port)).toBe(true);
    for (const address of outside) expect([address, await accepts(address, port)]).toEqual([address, true]);
  });
});
