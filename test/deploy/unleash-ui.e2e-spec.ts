/// <reference lib="dom" />
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'puppeteer-core';
import { installPeer, startPeer, type Peer } from '../../conformance/unleash-peer';
import { collectProblems, launchChromium } from '@flaglens/testing/support/browser';
import { spawnCli, type CliProcess } from '@flaglens/testing/support/cli';
import { freePort } from '@flaglens/testing/support/http';
import { startStack, type Stack } from '@flaglens/testing/support/stack';
import { startShippedNginx, type ShippedNginx } from '@flaglens/testing/support/shipped-nginx';
import { waitFor } from '@flaglens/testing/support/wait-for';

const ROOT = join(__dirname, '..', '..');
const RUN = join(ROOT, '.run', 'test-unleash-ui');
const SHOTS = join(ROOT, 'docs', 'unleash-ui');

/**
 * The unmodified Unleash 8.2.0 UI, signed in with a password in real Chromium, through the shipped nginx
 * recipe (deploy/nginx) in front of that Unleash and flaglens (api, projector and the source connector
 * following it, authentication on: flaglens accepts the UI's session cookie). The event log, a project page, its
 * status panel, the profile and the personal dashboard show data that flaglens served, as nginx's upstream log
 * proves.
 */
describe('the Unleash 8.2.0 UI through nginx, its reads served by flaglens', () => {
  let peer: Peer;
  let stack: Stack;
  let connector: CliProcess;
  let nginx: ShippedNginx;
  let browser: Browser;
  let proxy: string;
  const flag = `ui-checkout-${Date.now().toString(36)}`;

  async function unleash(method: string, path: string, body?: unknown): Promise<Response> {
    const r = await fetch(`${peer.url}${path}`, {
      method,
      headers: {
        authorization: peer.adminToken,
        'content-type': 'application/json',
        accept: 'application/json',
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (r.status >= 300) throw new Error(`${method} ${path}: ${r.status} ${await r.text()}`);
    return r;
  }

  beforeAll(async () => {
    browser = await launchChromium();
    installPeer(() => undefined, '8.2.0');
    peer = await startPeer(await freePort(), undefined, { version: '8.2.0' });
    // a little history: flags created, one enabled in development, one tagged, one archived
    await unleash('POST', '/api/admin/projects/default/features', { name: flag, type: 'release' });
    await unleash('POST', '/api/admin/projects/default/features', {
      name: `${flag}-old`,
      type: 'experiment',
    });
    await unleash('POST', `/api/admin/projects/default/features/${flag}/environments/development/on`);
    await unleash('DELETE', `/api/admin/projects/default/features/${flag}-old`);
    stack = await startStack('unleash_ui', { UNLEASH_API_URL: peer.url });
    connector = spawnCli(
      { ...stack.env, UNLEASH_DATABASE_URL: peer.dbUrl, CONNECTOR_PORT: String(await freePort()) },
      ['source', 'unleash'],
    );
    // the shipped files, with this test's upstreams and port, and a log of each request's upstream
    nginx = await startShippedNginx(RUN, { flaglens: stack.port, unleash: peer.port }, { upstreamLog: true });
    proxy = nginx.url;
    await waitFor(
      'the history projected',
      async () => {
        const [r] = await stack.db.query<{ n: string }>(
          `SELECT count(*) AS n FROM event_log WHERE feature_name = $1`,
          [`${flag}-old`],
        );
        return Number(r.n) >= 2;
      },
      { timeoutMs: 90000 },
    );
  });

  afterAll(async () => {
    await browser?.close();
    await nginx?.stop();
    connector?.child.kill('SIGTERM');
    await connector?.exited;
    await stack?.stop();
    await peer?.stop();
  });

  /**
   * A page of the UI with every problem it reports after sign-in. The machine has no internet: requests to
   * other hosts (the UI's web fonts, gravatar) are answered empty here instead of failing with a console
   * error that has nothing to do with the proxy.
   */
  async function signIn(): Promise<{ page: Page; problems: string[] }> {
    const page = await browser.newPage();
    await page.setRequestInterception(true);
    page.on('request', (r) => {
      if (new URL(r.url()).origin === proxy) void r.continue();
      else void r.respond({ status: 204, body: '' });
    });
    await page.goto(`${proxy}/login`, { waitUntil: 'networkidle2' });
    await page.type('#username', 'admin');
    await page.type('#password', peer.adminPassword);
    await page.click('[data-testid="LOGIN_BUTTON"]');
    await page.waitForFunction(() => !location.pathname.startsWith('/login'), { timeout: 30000 });
    // from here on: the 401s of the sign-in page itself (the UI asks before anyone signed in) are Unleash's
    const problems = collectProblems(page);
    page.on('response', (r) => {
      if (r.status() >= 400) problems.push(`${r.status()} ${r.request().method()} ${r.url()}`);
    });
    return { page, problems };
  }

  it('signs in, shows the event log, a project, its status, the profile and the personal dashboard from flaglens', async () => {
    const { page, problems } = await signIn();
    mkdirSync(SHOTS, { recursive: true });
    const shot = async (path: string, text: string, file: string) => {
      await page.goto(`${proxy}${path}`, { waitUntil: 'networkidle2' });
      await page.waitForFunction((t) => document.body.innerText.includes(t), { timeout: 30000 }, text);
      await page.screenshot({ path: join(SHOTS, file) });
    };
    await shot('/history', flag, 'event-log.png');
    // the page's title counts the search's total, and its search box filters through flaglens
    const total = (await page.evaluate(async () => {
      const r = await fetch('/api/admin/search/events?offset=0&limit=10');
      return ((await r.json()) as { total: number }).total;
    })) as number;
    expect(await page.evaluate(() => document.body.innerText)).toContain(`Event log (${total})`);
    const found = (await page.evaluate(async (q) => {
      const r = await fetch(`/api/admin/search/events?query=${encodeURIComponent(q)}&offset=0&limit=10`);
      return ((await r.json()) as { total: number }).total;
    }, `${flag}-old`)) as number;
    expect(found).toBeGreaterThan(0);
    expect(found).toBeLessThan(total);
    await page.type('input[type=search], input[placeholder^="Search"]', `${flag}-old`);
    await page.waitForFunction(
      (title) => document.body.innerText.includes(title),
      { timeout: 30000 },
      `Event log (${found})`,
    );
    await page.screenshot({ path: join(SHOTS, 'event-log-search.png') });
    // the open-source UI asks for event creators only with the Enterprise filters: asked here with its
    // cookie, through the proxy, and equal to Unleash's own answer
    const own = (await (await unleash('GET', '/api/admin/event-creators')).json()) as unknown;
    expect(
      await page.evaluate(async () => {
        const r = await fetch('/api/admin/event-creators');
        return [r.status, r.headers.get('x-served-by'), (await r.json()) as unknown];
      }),
    ).toEqual([200, 'flaglens', own]);
    await shot('/projects/default', flag, 'project.png');
    await shot('/profile', 'admin', 'profile.png');
    // the personal dashboard (where `/` lands): its projects, then the first one's details, from flaglens
    await page.evaluate(() => localStorage.removeItem('personal-dashboard:v1'));
    await shot('/personal', 'My projects', 'personal-dashboard.png');
    await page.waitForFunction(
      () =>
        /Your roles in this project|You have no project roles in this project/.test(document.body.innerText),
      { timeout: 30000 },
    );
    await page.screenshot({ path: join(SHOTS, 'personal-dashboard.png') });
    // the project status panel: its figures are flaglens's answer (it shows zeros until the answer arrives)
    const status = (await page.evaluate(async () => {
      const r = await fetch('/api/admin/projects/default/status');
      return [r.headers.get('x-served-by'), (await r.json()) as { resources: { apiTokens: number } }];
    })) as [string, { resources: { apiTokens: number } }];
    expect(status[0]).toBe('flaglens');
    await shot('/projects/default?project-status', 'Project resources', 'project-status.png');
    await page.waitForFunction(
      (n) => new RegExp(`\\b${n} API key`).test(document.body.innerText),
      { timeout: 30000 },
      status[1].resources.apiTokens,
    );
    await page.screenshot({ path: join(SHOTS, 'project-status.png') });
    const log = nginx.upstreamLog();
    const fromFlaglens = log.filter((s) => s.backend === 'flaglens');
    for (const uri of [
      '/api/admin/search/events',
      '/api/admin/event-creators',
      '/api/admin/user/profile',
      '/api/admin/projects/default/overview',
      '/api/admin/projects/default/status',
      '/api/admin/personal-dashboard',
      '/api/admin/personal-dashboard/default',
    ])
      expect(fromFlaglens.filter((s) => s.uri === uri && s.status === 200).length).toBeGreaterThan(0);
    // nothing flaglens serves went to Unleash, and nothing failed
    expect(log.filter((s) => s.backend === 'flaglens' && s.status >= 400)).toEqual([]);
    expect(problems).toEqual([]);
    await page.close();
  });
});
