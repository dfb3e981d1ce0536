import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { installPeer, startPeer, type Peer } from '../../conformance/unleash-peer';
import { spawnCli, type CliProcess } from '@flaglens/testing/support/cli';
import { freePort } from '@flaglens/testing/support/http';
import { startStack, type Stack } from '@flaglens/testing/support/stack';
import { waitFor } from '@flaglens/testing/support/wait-for';

const ROOT = join(__dirname, '..', '..');
const SHIPPED = join(ROOT, 'deploy', 'nginx');
const RUN = join(ROOT, '.run', 'test-nginx');

/**
 * The shipped nginx configuration (deploy/nginx) with a real nginx in front of a real Unleash 6.10.1 (the
 * conformance peer) and flaglens (api, projector, and the source connector following that Unleash): a write
 * through the proxy reaches Unleash, a read reaches flaglens, and the write shows up in that read.
 */
describe('nginx in front of Unleash and flaglens (deploy/nginx)', () => {
  let peer: Peer;
  let stack: Stack;
  let connector: CliProcess;
  let nginx: ChildProcess;
  let proxy: string;
  const nginxOutput: string[] = [];

  beforeAll(async () => {
    if (spawnSync('sh', ['-c', 'command -v nginx']).status !== 0)
      throw new Error(
        'nginx is not installed: apt-get install nginx (npm run deploy:check installs it as root)',
      );
    installPeer(() => undefined);
    peer = await startPeer(await freePort());
    // authentication off (every caller is the admin): the users of this Unleash need not be known to flaglens
    stack = await startStack('nginx', { FLAGLENS_AUTH: 'off' });
    connector = spawnCli(
      { ...stack.env, UNLEASH_DATABASE_URL: peer.dbUrl, CONNECTOR_PORT: String(await freePort()) },
      ['source', 'unleash'],
    );
    // the shipped files, with the upstreams and the port of this test (nothing else changed)
    rmSync(RUN, { recursive: true, force: true });
    mkdirSync(RUN, { recursive: true });
    const port = await freePort();
    proxy = `http://127.0.0.1:${port}`;
    writeFileSync(join(RUN, 'flaglens-routes.conf'), readFileSync(join(SHIPPED, 'flaglens-routes.conf')));
    const conf = readFileSync(join(SHIPPED, 'nginx.conf'), 'utf8')
      .replace('server flaglens-api:4242;', `server 127.0.0.1:${stack.port};`)
      .replace('server unleash:4242;', `server 127.0.0.1:${peer.port};`)
      .replace('listen 8080;', `listen 127.0.0.1:${port};`)
      .replace('worker_processes auto;', 'worker_processes 1;');
    writeFileSync(join(RUN, 'nginx.conf'), conf);
    nginx = spawn(
      'nginx',
      ['-p', RUN, '-c', join(RUN, 'nginx.conf'), '-g', `daemon off; pid ${RUN}/nginx.pid; error_log stderr;`],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    nginx.stderr!.on('data', (d: Buffer) => nginxOutput.push(d.toString()));
    await waitFor('nginx up', async () => (await fetch(`${proxy}/health`).catch(() => null)) !== null, {
      timeoutMs: 20000,
    });
  });

  afterAll(async () => {
    if (nginx && nginx.exitCode === null) {
      const exited = new Promise((r) => nginx.once('exit', r));
      nginx.kill('SIGQUIT');
      await exited;
    }
    connector?.child.kill('SIGTERM');
    await connector?.exited;
    await stack?.stop();
    await peer?.stop();
    rmSync(RUN, { recursive: true, force: true });
  });

  it('a write goes to Unleash, a read to flaglens, and the write shows in the read (through the connector)', async () => {
    const flag = `nginx-proxied-${Date.now().toString(36)}`;
    const write = await fetch(`${proxy}/api/admin/projects/default/features`, {
      method: 'POST',
      headers: {
        authorization: peer.adminToken,
        'content-type': 'application/json',
        accept: 'application/json',
      },
      body: JSON.stringify({ name: flag, type: 'release' }),
    });
    expect(write.headers.get('x-served-by')).toBe('unleash');
    expect(write.status).toBe(201);

    // no credentials: Unleash refuses that (401), so a 200 can only come from flaglens
    let last = '';
    const read = await waitFor(
      'the new flag in its event list through the proxy',
      async () => {
        const r = await fetch(`${proxy}/api/admin/events/${flag}`);
        const text = await r.text();
        last = `${r.status} ${r.headers.get('x-served-by')} ${text.slice(0, 300)}`;
        const body = r.status === 200 ? (JSON.parse(text) as { events: { type: string }[] }) : null;
        return body && body.events.some((e) => e.type === 'feature-created') ? { r, body } : undefined;
      },
      { timeoutMs: 60000, intervalMs: 500 },
    ).catch((e: Error) => {
      throw new Error(
        `${e.message}\nlast answer: ${last}\nconnector: ${connector.output.join('').slice(-1500)}`,
      );
    });
    expect(read!.r.headers.get('x-served-by')).toBe('flaglens');
    const direct = await fetch(`${peer.url}/api/admin/events/${flag}`);
    expect(direct.status).toBe(401);
  });

  it.each([
    ['GET', '/api/admin/events/some-flag', 'flaglens'],
    ['HEAD', '/api/admin/events/some-flag?project=default', 'flaglens'],
    ['GET', '/api/admin/user/profile', 'flaglens'],
    ['GET', '/api/admin/projects/default/overview', 'flaglens'],
    ['GET', '/api/admin/dashboard/executive', 'flaglens'],
    ['GET', '/api/admin/insights', 'flaglens'],
    ['GET', '/api/admin/events', 'unleash'],
    ['GET', '/api/admin/projects/default', 'unleash'],
    ['GET', '/api/admin/projects/default/overview/extra', 'unleash'],
    ['GET', '/api/admin/user', 'unleash'],
    ['POST', '/api/admin/user/profile', 'unleash'],
    ['PUT', '/api/admin/events/some-flag', 'unleash'],
    ['GET', '/api/client/features', 'unleash'],
    ['GET', '/health', 'unleash'],
  ])('%s %s goes to %s', async (method, path, backend) => {
    const r = await fetch(`${proxy}${path}`, { method, headers: { authorization: peer.adminToken } });
    expect(r.headers.get('x-served-by')).toBe(backend);
  });
});
