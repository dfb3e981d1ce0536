import { join } from 'node:path';
import { installPeer, startPeer, type Peer } from '../../conformance/unleash-peer';
import { spawnCli, type CliProcess } from '@flaglens/testing/support/cli';
import { freePort } from '@flaglens/testing/support/http';
import { startStack, type Stack } from '@flaglens/testing/support/stack';
import { startShippedNginx, type ShippedNginx } from '@flaglens/testing/support/shipped-nginx';
import { waitFor } from '@flaglens/testing/support/wait-for';

const ROOT = join(__dirname, '..', '..');
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
  let nginx: ShippedNginx;
  let proxy: string;

  beforeAll(async () => {
    installPeer(() => undefined);
    peer = await startPeer(await freePort());
    // authentication off (every caller is the admin): the users of this Unleash need not be known to flaglens
    stack = await startStack('nginx', { FLAGLENS_AUTH: 'off' });
    connector = spawnCli(
      { ...stack.env, UNLEASH_DATABASE_URL: peer.dbUrl, CONNECTOR_PORT: String(await freePort()) },
      ['source', 'unleash'],
    );
    // the shipped files, with the upstreams and the port of this test (nothing else changed)
    nginx = await startShippedNginx(RUN, { flaglens: stack.port, unleash: peer.port });
    proxy = nginx.url;
  });

  afterAll(async () => {
    await nginx?.stop();
    connector?.child.kill('SIGTERM');
    await connector?.exited;
    await stack?.stop();
    await peer?.stop();
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
    ['GET', '/api/admin/projects/default/status', 'flaglens'],
    ['GET', '/api/admin/personal-dashboard', 'flaglens'],
    ['GET', '/api/admin/personal-dashboard/default', 'flaglens'],
    ['GET', '/api/admin/personal-dashboard/default/extra', 'unleash'],
    ['POST', '/api/admin/personal-dashboard', 'unleash'],
    ['GET', '/api/admin/dashboard/executive', 'flaglens'],
    ['GET', '/api/admin/insights', 'flaglens'],
    ['GET', '/api/admin/insights/lifecycle?projects=', 'flaglens'],
    ['GET', '/api/admin/search/events?type=IS:feature-created', 'flaglens'],
    ['HEAD', '/api/admin/event-creators', 'flaglens'],
    ['GET', '/api/admin/diff?path=/api/admin/insights&from=2026-01-01T00:00:00Z', 'flaglens'],
    ['GET', '/api/admin/diff/events?path=/api/admin/insights&from=2026-01-01T00:00:00Z', 'flaglens'],
    ['GET', '/api/admin/diff/other', 'unleash'],
    ['GET', '/api/admin/search/features', 'unleash'],
    ['GET', '/api/admin/insights/other', 'unleash'],
    ['POST', '/api/admin/search/events', 'unleash'],
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
