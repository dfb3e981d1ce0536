/// <reference lib="dom" />
/// <reference lib="dom.iterable" />
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'puppeteer-core';
import type { FlagEvent } from '@flaglens/contract';
import { createToken, spawnCli } from '@flaglens/testing/support/cli';
import { collectProblems, launchChromium } from '@flaglens/testing/support/browser';
import { httpGet } from '@flaglens/testing/support/http';
import { produce } from '@flaglens/testing/support/test-kafka';
import { startStack, type Stack } from '@flaglens/testing/support/stack';
import { waitFor } from '@flaglens/testing/support/wait-for';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { build } = require('../scripts/build-console.js') as { build: () => Promise<unknown> };

const ROOT = join(__dirname, '..');
const DEMO = join(ROOT, 'test', 'fixtures', 'reference-sample');
const SHOTS = join(ROOT, 'docs', 'console');
const AXE = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

/**
 * A private project of alice (2) with a flag and a member added: bob (3, Viewer, no member) must not see it
 * anywhere.
 */
function privateProject(firstId: number): FlagEvent[] {
  const base = {
    createdBy: 'alice@example.com',
    createdByUserId: 2,
    environment: null,
    preData: null,
    tags: null,
  };
  return [
    {
      ...base,
      id: firstId,
      createdAt: '2026-11-22T09:00:00.000Z',
      type: 'project-created',
      project: 'vault',
      featureName: null,
      data: { id: 'vault', name: 'Vault', mode: 'private' },
    },
    {
      ...base,
      id: firstId + 1,
      createdAt: '2026-11-22T09:01:00.000Z',
      type: 'feature-created',
      project: 'vault',
      featureName: 'vault.secret',
      data: { name: 'vault.secret', type: 'release' },
    },
    {
      ...base,
      id: firstId + 2,
      createdAt: '2026-11-22T09:02:00.000Z',
      type: 'project-user-added',
      project: 'vault',
      featureName: null,
      data: { roleId: 5, userId: 2, roleName: 'Member' },
    },
  ];
}

/**
 * An event whose data holds HTML and a `javascript:` link: its summary (markdown made of event data) must show
 * them as text. On the day before the demo's, so a date range can pick it alone.
 */
const HOSTILE = "<img src=x onerror=\"document.title='xss'\">[click](javascript:document.title='xss')";
function hostileEvent(id: number): FlagEvent {
  return {
    id,
    createdAt: '2026-11-21T12:00:00.000Z',
    type: 'addon-config-created',
    createdBy: 'admin',
    createdByUserId: 1,
    environment: null,
    project: 'default',
    featureName: null,
    data: { provider: HOSTILE, enabled: true },
    preData: null,
    tags: null,
  };
}

type Row = string[];

/** Opens a chart's table and reads it: header labels, then one row of cells per week. */
async function chartTable(page: Page, id: string): Promise<{ head: string[]; rows: Row[] }> {
  const button = await page.waitForSelector(`[data-chart="${id}"] button[aria-controls="table-${id}"]`);
  if ((await button!.evaluate((b) => b.getAttribute('aria-expanded'))) !== 'true') await button!.click();
  await page.waitForSelector(`#table-${id} table`);
  return page.$eval(`#table-${id} table`, (t) => ({
    head: [...t.querySelectorAll('thead th')].map((th) => th.textContent ?? ''),
    rows: [...t.querySelectorAll('tbody tr')].map((tr) => [...tr.children].map((c) => c.textContent ?? '')),
  }));
}

async function axeSerious(page: Page): Promise<string[]> {
  await page.evaluate(AXE); // through the debugger protocol: the page's CSP does not apply
  const violations = await page.evaluate(async () => {
    const axe = (
      window as unknown as {
        axe: {
          run: (
            o: unknown,
          ) => Promise<{ violations: { id: string; impact: string; nodes: { target: string[] }[] }[] }>;
        };
      }
    ).axe;
    const r = await axe.run({
      runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'] },
    });
    return r.violations.map((v) => ({
      id: v.id,
      impact: v.impact,
      targets: v.nodes.map((n) => n.target.join(' ')).slice(0, 3),
    }));
  });
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id} (${v.impact}): ${v.targets.join(', ')}`);
}

describe('the web console in real Chromium (running apps, real Kafka and Postgres)', () => {
  let stack: Stack;
  let browser: Browser;
  let base: string;
  let admin: string;
  let bob: string;
  const seen: string[] = []; // every request URL the browser made (no token may appear in one)

  beforeAll(async () => {
    await build();
    browser = await launchChromium(); // fails clearly when Chromium is missing
    stack = await startStack('console_e2e');
    base = `http://127.0.0.1:${stack.port}`;
    const lines = readFileSync(join(DEMO, 'events.ndjson'), 'utf8').trim().split('\n');
    const ids = lines.map((l) => (JSON.parse(l) as { id: number }).id);
    const file = join(tmpdir(), `console-e2e-${process.pid}.ndjson`);
    writeFileSync(
      file,
      [
        ...lines,
        ...[...privateProject(Math.max(...ids) + 1000), hostileEvent(Math.max(...ids) + 2000)].map((e) =>
          JSON.stringify(e),
        ),
      ].join('\n') +
        '\n' +
        readFileSync(join(DEMO, 'sdk-events.ndjson'), 'utf8'),
    );
    await stack.publish(file);
    // one message no event can be made of: a dead letter for the Operations page
    await produce(stack.kafka, stack.topic, [{ key: 'poison', value: '{"not": "an event"' }]);
    await waitFor(
      'the demo projected and a dead letter stored',
      async () => {
        const [n] = await stack.db.query<{ n: string }>('SELECT count(*) AS n FROM public.dead_letters');
        const [v] = await stack.db.query<{ n: string }>(
          `SELECT count(*) AS n FROM event_log WHERE project = 'vault'`,
        );
        const [h] = await stack.db.query<{ n: string }>(
          `SELECT count(*) AS n FROM event_log WHERE data_text LIKE '%onerror%'`,
        );
        return Number(n.n) >= 1 && Number(v.n) === 3 && Number(h.n) === 1;
      },
      { timeoutMs: 90000 },
    );
    admin = await createToken(stack.env, 'admin');
    bob = await createToken(stack.env, 'bob@example.com');
  });

  afterAll(async () => {
    await browser?.close();
    await stack?.stop();
  });

  async function signedIn(token: string): Promise<{ page: Page; problems: string[] }> {
    const page = await browser.newPage();
    const problems = collectProblems(page);
    page.on('request', (r) => seen.push(r.url()));
    await page.goto(`${base}/console/`, { waitUntil: 'load' });
    await page.waitForSelector('#token');
    await page.type('#token', token);
    await page.click('button[type=submit]');
    await page.waitForSelector('nav[aria-label="Pages"]');
    return { page, problems };
  }

  async function api<T>(path: string, token: string): Promise<T> {
    const r = await httpGet(stack.port, path, { authorization: token });
    expect(r.status).toBe(200);
    return r.json() as T;
  }

  type Searched = {
    events: {
      id: number;
      type: string;
      createdAt: string;
      project: string | null;
      label: string;
      summary: string;
    }[];
    total: number;
  };

  /** Clicks an element through the DOM: a click by coordinates can land elsewhere while content above loads. */
  async function press(page: Page, selector: string): Promise<void> {
    await page.waitForSelector(selector);
    await page.$eval(selector, (b) => (b as HTMLElement).click());
  }

  /** The page's list (ids in order, and the total it names) equals the search route's answer. */
  async function shows(page: Page, expected: Searched): Promise<void> {
    const ids = expected.events.map((e) => e.id);
    await page
      .waitForFunction(
        (want: string, total: number) =>
          document.querySelector('.page-info')?.getAttribute('data-total') === String(total) &&
          [...document.querySelectorAll('.events .event')]
            .map((e) => e.getAttribute('data-event-id'))
            .join() === want,
        { timeout: 15000 },
        ids.join(),
        expected.total,
      )
      .catch(() => undefined); // the comparisons below say what differs
    expect(
      await page.$$eval('.events .event', (els) => els.map((e) => Number(e.getAttribute('data-event-id')))),
    ).toEqual(ids);
    expect(await page.$eval('.page-info', (p) => p.getAttribute('data-total'))).toBe(String(expected.total));
  }

  /**
   * The page shows the api's diff of `path` between T1 and T2: one row per operation of its patch, the range's
   * events counted, and changed lines marked in each answer that has a change to mark.
   */
  async function expectAnswerDiff(page: Page, path: string, t1: string, t2: string, token = admin) {
    const q = new URLSearchParams({ path, from: t1, to: t2 });
    const diff = await api<{ patch: { op: string }[]; events: { id: number }[] }>(
      `/api/admin/diff?${q}`,
      token,
    );
    await page.waitForSelector('.answer-diff .compare-info');
    expect(
      await page.$eval('.answer-diff .compare-info', (p) => [
        Number(p.getAttribute('data-answer-changes')),
        Number(p.getAttribute('data-events')),
      ]),
    ).toEqual([diff.patch.length, diff.events.length]);
    expect(
      await page.$$eval('.answer-changes tbody tr', (r) => r.map((e) => e.getAttribute('data-kind'))),
    ).toEqual(
      diff.patch.map((o) => ({ add: 'added', remove: 'removed', replace: 'changed', move: 'moved' })[o.op]),
    );
    const marks = await page.$$eval('.answer-pane', (panes) =>
      panes.map((p) => p.querySelectorAll('mark').length),
    );
    const marksNeeded = [diff.patch.some((o) => o.op !== 'add'), diff.patch.some((o) => o.op !== 'remove')];
    expect(marks.map((n) => n > 0)).toEqual(marksNeeded);
    return diff;
  }

  it('is served with a strict CSP and no inline script', async () => {
    const r = await httpGet(stack.port, '/console/');
    expect(r.status).toBe(200);
    const csp = String(r.headers['content-security-policy']);
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toContain('unsafe-inline');
    expect(csp).not.toContain('unsafe-eval');
    expect(r.text).not.toMatch(/<script>(?!<\/script>)|<script[^>]*>[^<]+<\/script>/);
    expect(r.text).not.toMatch(/https?:\/\//); // nothing from elsewhere
  });

  it('opens at the README’s link, /console without the slash, with its styles and script', async () => {
    const page = await browser.newPage();
    const problems = collectProblems(page);
    const answers: string[] = [];
    page.on('response', (r) => answers.push(`${r.status()} ${new URL(r.url()).pathname}`));
    await page.goto(`${base}/console`, { waitUntil: 'load' });
    await page.waitForSelector('#token'); // the script ran
    expect(new URL(page.url()).pathname).toBe('/console/');
    // the stylesheet applied: the body's font is the console's, not the browser's default serif
    expect(await page.evaluate(() => getComputedStyle(document.body).fontFamily)).not.toMatch(/^"?Times/);
    expect(answers.filter((a) => !/^(200|301|304) /.test(a))).toEqual([]);
    expect(answers).toContain('301 /console');
    expect(problems).toEqual([]);
    // the query string goes along; the path's letter case does not matter
    const r = await httpGet(stack.port, '/CONSOLE?x=1');
    expect([r.status, r.headers.location]).toEqual([301, '/console/?x=1']);
    await page.close();
  });

  it('the api behind it: operators only on Operations, visibility on names and pages', async () => {
    expect((await httpGet(stack.port, '/api/admin/console/operations', { authorization: bob })).status).toBe(
      403,
    );
    expect((await httpGet(stack.port, '/api/admin/console/operations')).status).toBe(401);
    const bobNames = await api<{ flags: { name: string }[] }>('/api/admin/console/flags?q=vault', bob);
    expect(bobNames.flags).toEqual([]);
    const adminNames = await api<{ flags: { name: string }[] }>('/api/admin/console/flags?q=vault', admin);
    expect(adminNames.flags.map((f) => f.name)).toEqual(['vault.secret']);
    const page = await api<{ events: unknown[]; totalEvents: number }>(
      '/api/admin/console/flags/vault.secret/events',
      bob,
    );
    expect(page).toMatchObject({ events: [], totalEvents: 0 });
  });

  it('a flag’s events a page at a time: the pages, joined, are the event list', async () => {
    const whole = await api<{ events: { id: number }[] }>('/api/admin/events/checkout.new-flow', admin);
    expect(whole.events.length).toBeGreaterThan(10);
    const ids: number[] = [];
    let cursor = '';
    let total: number | null = null;
    for (let i = 0; i < 20; i++) {
      const page = await api<{ events: { id: number }[]; totalEvents: number | null; next: string | null }>(
        `/api/admin/console/flags/checkout.new-flow/events?limit=5&cursor=${cursor}`,
        admin,
      );
      if (i === 0) total = page.totalEvents;
      ids.push(...page.events.map((e) => e.id));
      if (!page.next) break;
      cursor = page.next;
    }
    expect(total).toBe(whole.events.length);
    expect(ids).toEqual(whole.events.map((e) => e.id));
    for (const bad of ['x', 'WyIxIiwiMTsgRFJPUCJd', '&cursor=a'])
      expect(
        (
          await httpGet(stack.port, `/api/admin/console/flags/checkout.new-flow/events?cursor=${bad}`, {
            authorization: admin,
          })
        ).status,
      ).toBe(400);
  });

  it('Insights: every chart drawn, its numbers equal the api’s, no console errors, no serious axe finding', async () => {
    const { page, problems } = await signedIn(admin);
    await page.goto(`${base}/console/#/insights`);
    await page.waitForSelector('[data-chart="flags"] canvas');
    const ins = await api<{
      flagTrends: { date: string; total: number; active: number; stale: number; potentiallyStale: number }[];
      userTrends: { date: string; total: number; active: number; inactive: number }[];
      projectFlagTrends: { date: string; project: string; health: number; total: number }[];
      environmentTypeTrends: { date: string; environmentType: string; totalUpdates: number }[];
      metricsSummaryTrends: { date: string; project: string; totalRequests: number; totalYes: number }[];
    }>('/api/admin/insights?from=&to=', admin);
    expect(ins.flagTrends.length).toBeGreaterThan(0);
    const charts = await page.$$eval('[data-chart]', (els) => els.map((e) => e.getAttribute('data-chart')));
    expect(charts).toEqual([
      'flags',
      'health',
      'time-to-production',
      'users',
      'sdk-requests',
      'sdk-exposures',
      'environment-updates',
    ]);
    expect(await page.$$eval('[data-chart] canvas', (c) => c.length)).toBeGreaterThanOrEqual(7);
    const flags = await chartTable(page, 'flags');
    expect(flags.head).toEqual(['week ending', 'total', 'active', 'stale', 'potentially stale']);
    expect(flags.rows).toEqual(
      ins.flagTrends.map((r) => [
        r.date.slice(0, 10),
        String(r.total),
        String(r.active),
        String(r.stale),
        String(r.potentiallyStale),
      ]),
    );
    // the time axis speaks in weeks: every tick is a week of the table, none between them
    const ticks = await page.$eval('[data-chart="flags"] [data-ticks]', (e) => e.getAttribute('data-ticks'));
    expect(ticks!.split(' ').length).toBeGreaterThan(0);
    for (const t of ticks!.split(' ')) expect(flags.rows.map((r) => r[0])).toContain(t);
    const users = await chartTable(page, 'users');
    expect(users.rows).toEqual(
      ins.userTrends.map((r) => [r.date.slice(0, 10), String(r.total), String(r.active), String(r.inactive)]),
    );
    const health = await chartTable(page, 'health');
    for (const row of health.rows)
      health.head.slice(1).forEach((project, i) => {
        const r = ins.projectFlagTrends.find((x) => x.project === project && x.date.slice(0, 10) === row[0]);
        expect(row[i + 1]).toBe(r ? String(r.health) : '');
      });
    const env = await chartTable(page, 'environment-updates');
    for (const row of env.rows)
      env.head.slice(1).forEach((type, i) => {
        const total = ins.environmentTypeTrends
          .filter((x) => x.environmentType === type && x.date.slice(0, 10) === row[0])
          .reduce((n, x) => n + x.totalUpdates, 0);
        expect(row[i + 1]).toBe(String(total));
      });
    const requests = await chartTable(page, 'sdk-requests');
    for (const row of requests.rows)
      requests.head.slice(1).forEach((project, i) => {
        const rows = ins.metricsSummaryTrends.filter(
          (x) => x.project === project && x.date.slice(0, 10) === row[0],
        );
        expect(row[i + 1]).toBe(rows.length ? String(rows.reduce((n, x) => n + x.totalRequests, 0)) : '');
      });
    // the project filter and the range are in the URL: a shared link shows the same view
    const project = ins.projectFlagTrends[0].project;
    const day = ins.flagTrends.at(-1)!.date.slice(0, 10);
    await page.goto(`${base}/console/#/insights?from=${day}&to=${day}&projects=${project}`);
    await page
      .waitForFunction(
        (d) =>
          [...document.querySelectorAll('#table-flags tbody tr th')].map((t) => t.textContent).join() === d,
        {},
        day,
      )
      .catch(async () => {
        await chartTable(page, 'flags');
      });
    const one = await chartTable(page, 'flags');
    const expected = ins.projectFlagTrends.filter(
      (r) => r.project === project && r.date.slice(0, 10) === day,
    );
    expect(one.rows).toEqual([
      [
        day,
        String(expected.reduce((n, r) => n + r.total, 0)),
        expect.any(String),
        expect.any(String),
        expect.any(String),
      ],
    ]);
    expect(
      await page.$eval('select[name=projects]', (s) =>
        [...(s as HTMLSelectElement).selectedOptions].map((o) => o.value),
      ),
    ).toEqual([project]);
    // one week alone: its one tick, not an axis of years
    expect(await page.$eval('[data-chart="flags"] [data-ticks]', (e) => e.getAttribute('data-ticks'))).toBe(
      day,
    );
    await page.goto(`${base}/console/#/insights`);
    // the whole range drawn again (ticks as at first), not the one week before
    await page.waitForFunction(
      (t) => document.querySelector('[data-chart="flags"] [data-ticks]')?.getAttribute('data-ticks') === t,
      {},
      ticks,
    );
    mkdirSync(SHOTS, { recursive: true });
    await page.screenshot({ path: join(SHOTS, 'insights.png'), fullPage: true });
    expect(await axeSerious(page)).toEqual([]);
    expect(problems).toEqual([]);
    await page.close();
  });

  it('Flag: search with suggestions, events newest first with who/when/type/env/tags and a diff', async () => {
    const { page, problems } = await signedIn(admin);
    const counts = await stack.db.query<{ f: string; n: string }>(
      `SELECT feature_name AS f, count(*) AS n FROM event_log WHERE feature_name IS NOT NULL GROUP BY 1 ORDER BY 2 DESC, 1 LIMIT 1`,
    );
    const flag = counts[0].f;
    await page.goto(`${base}/console/#/flag`);
    await page.waitForSelector('#flag-q');
    await page.type('#flag-q', flag.slice(0, 4));
    await page.waitForSelector(`.suggestions a[href="#/flag/${encodeURIComponent(flag)}"]`);
    await page.click(`.suggestions a[href="#/flag/${encodeURIComponent(flag)}"]`);
    await page.waitForSelector('.events .event');
    const all = await api<{ events: { id: number; type: string; createdBy: string }[] }>(
      `/api/admin/events/${encodeURIComponent(flag)}`,
      admin,
    );
    const ids = await page.$$eval('.events .event', (els) =>
      els.map((e) => Number(e.getAttribute('data-event-id'))),
    );
    expect(ids).toEqual(all.events.slice(0, 50).map((e) => e.id));
    const first = await page.$eval('.events .event', (e) => e.textContent ?? '');
    expect(first).toContain(all.events[0].type);
    expect(first).toContain(all.events[0].createdBy);
    // the diff on demand
    expect(await page.$$eval('.events table.diff', (t) => t.length)).toBe(0);
    await page.click('.events .event button[aria-expanded="false"]');
    await page.waitForSelector('.events table.diff');
    expect(await page.$$eval('.events table.diff tbody tr', (r) => r.length)).toBeGreaterThan(0);
    await page.screenshot({ path: join(SHOTS, 'flag.png'), fullPage: false });
    expect(await axeSerious(page)).toEqual([]);
    // the search route's filters, the flag fixed: a type, then a free text, kept in the URL
    const type = all.events[0].type;
    const byType = await api<Searched>(
      `/api/admin/search/events?feature=IS:${encodeURIComponent(flag)}&type=IS:${type}&offset=0&limit=50`,
      admin,
    );
    expect(byType.total).toBeLessThan(all.events.length);
    await page.$eval('form[aria-label="Event filters"] input[name=type]', (i) => {
      (i as HTMLInputElement).value = '';
    });
    await page.type('form[aria-label="Event filters"] input[name=type]', type);
    await page.click('form[aria-label="Event filters"] button[type=submit]');
    await shows(page, byType);
    expect(new URL(page.url()).hash).toBe(`#/flag/${encodeURIComponent(flag)}?type=${type}`);
    const text = 'flexibleRollout';
    const byText = await api<Searched>(
      `/api/admin/search/events?feature=IS:${encodeURIComponent(flag)}&query=${text}&environment=IS:production&offset=0&limit=50`,
      admin,
    );
    expect(byText.total).toBeGreaterThan(0);
    expect(byText.total).toBeLessThan(all.events.length);
    await page.goto(`${base}/console/#/flag/${encodeURIComponent(flag)}?q=${text}&environment=production`);
    await shows(page, byText);
    await page.reload();
    await shows(page, byText);
    expect(await page.$eval('input[name=q]', (i) => (i as HTMLInputElement).value)).toBe(text);
    expect(problems).toEqual([]);
    await page.close();
  });

  it('Events: the rows equal the search route’s for the same filters, kept in the URL', async () => {
    const { page, problems } = await signedIn(admin);
    const search = (q: string) => api<Searched>(`/api/admin/search/events?${q}`, admin);
    const all = await search('offset=0&limit=50');
    expect(all.total).toBeGreaterThan(50);
    expect(await page.$$eval('nav[aria-label="Pages"] a', (a) => a.map((e) => e.textContent))).toEqual([
      'Insights',
      'Flags',
      'Events',
      'Projects',
      'Profile',
      'Operations',
    ]);
    await page.click('nav[aria-label="Pages"] a[href="#/events"]');
    await shows(page, all);
    const first = await page.$eval('.events .event', (e) => ({
      label: e.querySelector('.summary .label')?.textContent,
      summary: e.querySelector('.summary')?.textContent,
      type: e.querySelector('.type')?.textContent,
      time: e.querySelector('time')?.getAttribute('datetime'),
    }));
    expect(first).toEqual({
      label: all.events[0].label,
      summary: `${all.events[0].label}: ${all.events[0].summary.replace(/\*\*|\[|\]\([^)]*\)/g, '')}`,
      type: all.events[0].type,
      time: all.events[0].createdAt,
    });
    // paging: the next page is the route's offset 50, in the URL
    await page.click('nav[aria-label="Event pages"] button[data-page="older"]');
    await shows(page, await search('offset=50&limit=50'));
    expect(new URL(page.url()).hash).toBe('#/events?offset=50');
    const type = 'feature-created';
    const views: [string, string][] = [
      [`type=${type}`, `type=IS:${type}`],
      ['q=checkout', 'query=checkout'],
      ['from=2026-11-22&to=2026-11-22', 'from=IS:2026-11-22&to=IS:2026-11-22'],
      ['from=2026-11-21&to=2026-11-21', 'from=IS:2026-11-21&to=IS:2026-11-21'],
      ['project=default', 'project=IS:default'],
      ['project=default&offset=50', 'project=IS:default&offset=50'],
    ];
    for (const [hash, query] of views) {
      const expected = await search(`${query}${query.includes('offset') ? '' : '&offset=0'}&limit=50`);
      expect(expected.total).toBeGreaterThan(0);
      expect(expected.total).toBeLessThan(all.total);
      await page.goto(`${base}/console/#/events?${hash}`);
      await shows(page, expected);
    }
    // the form: a type and a creator (from the event creators) land in the URL, and a reload shows the same
    await page.goto(`${base}/console/#/events`);
    await shows(page, all);
    const creators = await api<{ id: number; name: string }[]>('/api/admin/event-creators', admin);
    expect(creators.map((c) => c.id)).toContain(1);
    await page.waitForSelector('select[name=createdBy] option[value="1"]');
    expect(
      await page.$$eval('select[name=createdBy] option', (o) => o.map((e) => e.getAttribute('value'))),
    ).toEqual(['', ...creators.map((c) => String(c.id))]);
    await page.type('input[name=type]', 'addon-config-created');
    await page.select('select[name=createdBy]', '1');
    await page.click('form[aria-label="Event filters"] button[type=submit]');
    const hostile = await search('type=IS:addon-config-created&createdBy=IS:1&offset=0&limit=50');
    expect(hostile.total).toBeGreaterThan(0);
    await shows(page, hostile);
    expect(new URL(page.url()).hash).toBe('#/events?type=addon-config-created&createdBy=1');
    await page.reload();
    await shows(page, hostile);
    expect(await page.$eval('select[name=createdBy]', (s) => (s as HTMLSelectElement).value)).toBe('1');
    // the summary made of event data shows its HTML and its javascript: link as text
    const event = hostile.events.find((e) => e.summary.includes('onerror'))!;
    expect(event.summary).toContain(HOSTILE);
    const summary = await page.$eval(`.event[data-event-id="${event.id}"] .summary`, (e) => ({
      text: e.textContent,
      bold: [...e.querySelectorAll('strong')].map((b) => b.textContent),
    }));
    expect(summary.text).toContain(HOSTILE);
    expect(summary.bold).toEqual(['admin', HOSTILE]);
    expect(await page.$$eval('.events img', (i) => i.length)).toBe(0);
    expect(await page.$$eval('.summary a', (a) => a.map((e) => e.getAttribute('href')))).toEqual([]);
    expect(await page.title()).not.toBe('xss');
    // links in summaries are http(s) only, opened apart
    await page.goto(`${base}/console/#/events?type=${type}`);
    await page.waitForSelector('.summary a');
    for (const a of await page.$$eval('.summary a', (l) =>
      l.map((e) => [e.getAttribute('href'), e.getAttribute('rel')]),
    )) {
      expect(a[0]).toMatch(/^https?:\/\//);
      expect(a[1]).toContain('noopener');
    }
    await page.goto(`${base}/console/#/events`);
    await shows(page, all);
    await page.click('.events .event button[aria-expanded="false"]');
    await page.waitForSelector('.events table.diff');
    await page.screenshot({ path: join(SHOTS, 'events.png'), fullPage: false });
    expect(await axeSerious(page)).toEqual([]);
    expect(problems).toEqual([]);
    await page.close();
  });

  it('Events: a non-member sees no private project’s events', async () => {
    const vault = await api<Searched>('/api/admin/search/events?project=IS:vault', admin);
    expect(vault.total).toBe(3);
    const mine = await api<Searched>('/api/admin/search/events?offset=0&limit=50', bob);
    expect(mine.events.some((e) => e.project === 'vault')).toBe(false);
    const { page, problems } = await signedIn(bob);
    await page.goto(`${base}/console/#/events`);
    await shows(page, mine);
    await page.waitForFunction(() => document.querySelectorAll('select[name=project] option').length > 1);
    expect(await page.content()).not.toContain('vault');
    await page.goto(`${base}/console/#/events?project=vault`);
    await shows(page, { events: [], total: 0 });
    expect(await page.$eval('.page-info', (p) => p.textContent)).toMatch(/^No events/);
    expect(await axeSerious(page)).toEqual([]);
    expect(problems).toEqual([]);
    await page.close();
  });

  it('Project: the overview as cards, equal to the api’s', async () => {
    const { page, problems } = await signedIn(admin);
    await page.goto(`${base}/console/#/project/default`);
    await page.waitForSelector('[data-card="health"]');
    const ov = await api<{
      health: number;
      members: number;
      stats: Record<string, number>;
      featureTypeCounts: { type: string; count: number }[];
      environments: { environment: string }[];
      onboardingStatus: { status: string };
    }>('/api/admin/projects/default/overview', admin);
    const value = (card: string) =>
      page.$eval(`[data-card="${card}"] .big`, (e) => e.getAttribute('data-value'));
    expect(await value('health')).toBe(String(ov.health));
    expect(await value('members')).toBe(String(ov.members));
    expect(await value('onboarding')).toBe(ov.onboardingStatus.status);
    for (const k of [
      'createdCurrentWindow',
      'archivedCurrentWindow',
      'projectActivityCurrentWindow',
      'projectMembersAddedCurrentWindow',
      'avgTimeToProdCurrentWindow',
    ])
      expect(await value(k)).toBe(String(ov.stats[k]));
    expect(
      await page.$$eval('[data-card="feature-types"] li[data-type]', (l) =>
        l.map((e) => ({ type: e.getAttribute('data-type'), count: Number(e.getAttribute('data-value')) })),
      ),
    ).toEqual(ov.featureTypeCounts);
    expect(
      await page.$$eval('[data-card="environments"] li', (l) =>
        l.map((e) => e.getAttribute('data-environment')),
      ),
    ).toEqual(ov.environments.map((e) => e.environment));
    await page.screenshot({ path: join(SHOTS, 'project.png'), fullPage: true });
    expect(await axeSerious(page)).toEqual([]);
    expect(problems).toEqual([]);
    await page.close();
  });

  it('Project and flag as of an instant, and a project compared between two, each change linked to its event', async () => {
    // the demo's project `default`: one flag by T1, then six more created, enabled, archived, deleted by T2
    const T1 = '2026-11-22T08:52:50.000Z';
    const T2 = '2026-11-22T08:52:53.000Z';
    type Ov = { featureTypeCounts: { type: string; count: number }[] };
    const flags = (o: Ov) => o.featureTypeCounts.reduce((n, t) => n + t.count, 0);
    const then = await api<Ov>(`/api/admin/projects/default/overview?at=${T1}`, admin);
    const now = await api<Ov>('/api/admin/projects/default/overview', admin);
    expect(flags(then)).toBe(1);
    expect(flags(now)).toBeGreaterThan(1);
    const { page, problems } = await signedIn(admin);
    const typeCounts = () =>
      page.$$eval('[data-card="feature-types"] li[data-type]', (l) =>
        l.map((e) => ({ type: e.getAttribute('data-type'), count: Number(e.getAttribute('data-value')) })),
      );
    const hashParam = (name: string) =>
      page.evaluate((n) => new URLSearchParams(location.hash.split('?')[1] ?? '').get(n), name);
    /** The page shows an overview with this many flags. */
    const showsFlags = (n: number) =>
      page.waitForFunction(
        (count: number) =>
          [...document.querySelectorAll('[data-card="feature-types"] li[data-type]')].reduce(
            (s, e) => s + Number(e.getAttribute('data-value')),
            0,
          ) === count,
        { timeout: 15000 },
        n,
      );

    // a link with `at` shows the earlier state, and says so
    await page.goto(`${base}/console/#/project/default?at=${T1}`);
    await page.waitForSelector(`.as-of[data-as-of="${T1}"]`);
    await page.waitForSelector('[data-card="feature-types"]');
    expect(await typeCounts()).toEqual(then.featureTypeCounts);
    // "Now" returns to live reads
    await press(page, 'button[data-time="now"]');
    await page.waitForSelector('[data-as-of=""]');
    await showsFlags(flags(now));
    expect(await hashParam('at')).toBeNull();
    // instants typed into the comparison outlive the page's renders: here the time control's new instant, then
    // the overview's load as of it
    const compareInputs = () =>
      page.$$eval('input[name=t1], input[name=t2]', (l) => l.map((i) => (i as HTMLInputElement).value));
    await page.$eval('input[name=t1]', (i) => ((i as HTMLInputElement).value = '2026-11-22T08:52:50'));
    await page.$eval('input[name=t2]', (i) => ((i as HTMLInputElement).value = '2026-11-22T08:52:53'));
    // the control puts the instant in the URL
    await page.$eval('input[name=at]', (i) => ((i as HTMLInputElement).value = '2026-11-22T08:52:50'));
    await press(page, 'button[data-time="show"]');
    await page.waitForSelector(`.as-of[data-as-of="${T1}"]`);
    expect(await hashParam('at')).toBe(T1);
    await showsFlags(flags(then));
    expect(await compareInputs()).toEqual(['2026-11-22T08:52:50', '2026-11-22T08:52:53']);

    // compare T1 and T2: the changes are the project's events in (T1, T2], classified, oldest first
    await press(page, 'button[data-compare="go"]');
    await page.waitForSelector('.compare-info');
    expect([await hashParam('t1'), await hashParam('t2'), await hashParam('at')]).toEqual([T1, T2, T1]);
    const searched = await api<{ events: (Searched['events'][number] & { featureName: string | null })[] }>(
      `/api/admin/search/events?project=IS:default&at=${T2}&limit=1000`,
      admin,
    );
    const kinds: Record<string, string> = {
      'feature-created': 'added',
      'feature-environment-enabled': 'enabled',
      'feature-environment-disabled': 'disabled',
      'feature-archived': 'archived',
      'feature-revived': 'revived',
      'feature-deleted': 'deleted',
    };
    const expected = searched.events
      .filter((e) => e.createdAt > T1 && kinds[e.type])
      .reverse()
      .map((e) => ({ id: e.id, kind: kinds[e.type] }));
    const rows = await page.$$eval('.project-changes tbody tr', (trs) =>
      trs.map((tr) => ({ id: Number(tr.getAttribute('data-event-id')), kind: tr.getAttribute('data-kind') })),
    );
    expect(rows).toEqual(expected);
    const count = (k: string) => rows.filter((r) => r.kind === k).length;
    expect([count('added'), count('enabled'), count('disabled'), count('archived')]).toEqual([7, 8, 2, 3]);
    expect([count('revived'), count('deleted')]).toEqual([1, 1]);
    // the overview as of each instant, from the api's diff: every operation of its patch a row, both answers
    // side by side with the changed lines marked
    await expectAnswerDiff(page, `/api/admin/projects/default/overview`, T1, T2);
    await page.waitForSelector('[data-card="feature-types"]');
    await page.screenshot({ path: join(SHOTS, 'project-compare.png'), fullPage: true });
    expect(await axeSerious(page)).toEqual([]);

    // each change links to its event: the deletion's link opens the event log on that one event
    const deleted = rows.find((r) => r.kind === 'deleted')!;
    await press(page, `.project-changes tr[data-event-id="${deleted.id}"] a[data-event-link]`);
    await shows(page, { events: [{ id: deleted.id }], total: 1 } as Searched);
    expect(await page.$eval('.events .event .type', (e) => e.textContent)).toBe('feature-deleted');
    expect(await page.$eval('#history-title', (h) => h.textContent)).toBe(`Event #${deleted.id}`);

    // members changed: alice's private project, a flag and then a member added
    const vault = await api<Searched>('/api/admin/search/events?project=IS:vault', admin);
    const [added, member] = vault.events.filter((e) => e.type !== 'project-created').reverse();
    expect(member.type).toBe('project-user-added');
    await page.goto(`${base}/console/#/project/vault?t1=2026-11-22T08:59:00Z&t2=2026-11-22T09:03:00Z`);
    await page.waitForSelector('.compare-info');
    expect(
      await page.$$eval('.project-changes tbody tr', (trs) =>
        trs.map((tr) => [Number(tr.getAttribute('data-event-id')), tr.getAttribute('data-kind')]),
      ),
    ).toEqual([
      [added.id, 'added'],
      [member.id, 'member'],
    ]);

    // the flag page as of T1: the flag's events up to T1, as the search answers them
    const flag = searched.events.find((e) => e.createdAt <= T1 && e.featureName)!.featureName!;
    await page.goto(`${base}/console/#/flag/${encodeURIComponent(flag)}?at=${T1}`);
    await page.waitForSelector(`.as-of[data-as-of="${T1}"]`);
    const flagThen = await api<Searched>(
      `/api/admin/search/events?feature=IS:${encodeURIComponent(flag)}&at=${T1}&offset=0&limit=50`,
      admin,
    );
    expect(flagThen.total).toBeGreaterThan(0);
    await shows(page, flagThen);
    await press(page, 'button[data-time="now"]');
    await shows(
      page,
      await api<Searched>(`/api/admin/search/events?feature=IS:${encodeURIComponent(flag)}&limit=50`, admin),
    );
    expect(problems).toEqual([]);
    await page.close();
  });

  it('Flag, profile and insights compared between two instants, from the api’s diff', async () => {
    const T1 = '2026-11-22T08:52:50.000Z';
    const T2 = '2026-11-22T08:52:53.000Z';
    const { page, problems } = await signedIn(admin);
    const changed = await api<{ events: (Searched['events'][number] & { featureName: string | null })[] }>(
      `/api/admin/search/events?project=IS:default&at=${T2}&limit=1000`,
      admin,
    );
    const flag = changed.events.find((e) => e.createdAt > T1 && e.featureName)!.featureName!;

    // a flag's event list: the events it gained, each an `added` row linked to its event
    await page.goto(`${base}/console/#/flag/${encodeURIComponent(flag)}?t1=${T1}&t2=${T2}`);
    const flagDiff = await expectAnswerDiff(page, `/api/admin/events/${encodeURIComponent(flag)}`, T1, T2);
    expect(flagDiff.events.length).toBeGreaterThan(0);
    await page.screenshot({ path: join(SHOTS, 'flag-compare.png'), fullPage: true });
    expect(await axeSerious(page)).toEqual([]);
    const linked = await page.$eval('.answer-changes a[data-event-link]', (a) => a.getAttribute('href'));
    await press(page, '.answer-changes a[data-event-link]');
    const id = Number(new URLSearchParams(linked!.split('?')[1]).get('id'));
    await shows(page, { events: [{ id }], total: 1 } as Searched);

    // the profile: the caller's own, unchanged over a range without their identity events
    await page.goto(`${base}/console/#/profile?t1=${T1}&t2=${T2}`);
    await page.waitForSelector('[data-value]');
    await expectAnswerDiff(page, '/api/admin/user/profile', T1, T2);
    await page.screenshot({ path: join(SHOTS, 'profile-compare.png'), fullPage: true });
    expect(await axeSerious(page)).toEqual([]);

    // the insights over the demo's range, as of each instant
    await page.goto(`${base}/console/#/insights?t1=${T1}&t2=${T2}`);
    await expectAnswerDiff(page, '/api/admin/insights', T1, T2);
    expect(await page.$$eval('.answer-changes tbody tr', (r) => r.length)).toBeGreaterThan(0);
    await page.screenshot({ path: join(SHOTS, 'insights-compare.png'), fullPage: true });

    // a reversed range is refused on the page, before any read
    await page.goto(`${base}/console/#/profile?t1=${T2}&t2=${T1}`);
    await page.waitForSelector('.compare [role=alert]');
    expect(await page.$eval('.compare [role=alert]', (p) => p.textContent)).toBe('T1 must be before T2.');
    expect(problems).toEqual([]);
    await page.close();
  });

  it('Operations (operators): lag per partition, dead letters with a look at one, refreshing itself', async () => {
    const { page, problems } = await signedIn(admin);
    await page.goto(`${base}/console/#/operations`);
    await page.waitForSelector('[data-section="partitions"] tbody tr');
    const st = await api<{
      partitions: { partition: number }[];
      deadLetters: { byReason: { reason: string }[] };
    }>('/api/admin/console/operations', admin);
    expect(
      await page.$$eval('[data-section="partitions"] tbody tr', (r) =>
        r.map((e) => Number(e.getAttribute('data-partition'))),
      ),
    ).toEqual(st.partitions.map((p) => p.partition));
    await waitFor('every partition caught up', async () =>
      (await page.$$eval('[data-section="partitions"] .status', (s) => s.map((e) => e.textContent))).every(
        (t) => t === 'caught up',
      ),
    );
    expect(
      await page.$$eval('[data-section="dead-letters"] tr[data-reason]', (r) =>
        r.map((e) => e.getAttribute('data-reason')),
      ),
    ).toEqual(st.deadLetters.byReason.map((r) => r.reason));
    const before = await page.$eval('time', (t) => t.getAttribute('datetime'));
    await page.click('[data-section="dead-letters"] button[aria-label^="Look at dead letter"]');
    await page.waitForSelector('pre.raw');
    expect(await page.$eval('pre.raw', (p) => p.textContent)).toContain('{"not": "an event"');
    await page.waitForFunction(
      (b) => document.querySelector('time')?.getAttribute('datetime') !== b,
      { timeout: 15000 },
      before,
    );
    await page.screenshot({ path: join(SHOTS, 'operations.png'), fullPage: true });
    expect(await axeSerious(page)).toEqual([]);
    expect(problems).toEqual([]);
    await page.close();
  });

  it('a non-member sees no private project anywhere, and no Operations page', async () => {
    const { page, problems } = await signedIn(bob);
    expect(await page.$$eval('nav[aria-label="Pages"] a', (a) => a.map((e) => e.textContent))).toEqual([
      'Insights',
      'Flags',
      'Events',
      'Projects',
      'Profile',
    ]);
    await page.waitForSelector('[data-chart="flags"] canvas');
    expect(
      await page.$$eval('select[name=projects] option', (o) => o.map((e) => e.getAttribute('value'))),
    ).not.toContain('vault');
    expect(await page.content()).not.toContain('vault');
    await page.goto(`${base}/console/#/project`);
    await page.waitForFunction(() => document.querySelectorAll('select[name=project] option').length > 1);
    expect(
      await page.$$eval('select[name=project] option', (o) => o.map((e) => e.getAttribute('value'))),
    ).not.toContain('vault');
    await page.goto(`${base}/console/#/flag/vault.secret`);
    await page.waitForSelector('.page-info');
    expect(await page.$eval('.page-info', (p) => p.textContent)).toMatch(/^No events/);
    await page.goto(`${base}/console/#/operations`); // not an operator: the page is not there
    await page.waitForSelector('[data-chart="flags"]');
    // signing out forgets the token
    await page.click('.top .who button');
    await page.waitForSelector('#token');
    expect(await page.evaluate(() => sessionStorage.length)).toBe(0);
    await page.screenshot({ path: join(SHOTS, 'sign-in.png') });
    expect(await axeSerious(page)).toEqual([]);
    expect(problems).toEqual([]);
    await page.close();
  });

  it('Operations shows a rebuild in progress with its bar, then the new version', async () => {
    type Ops = {
      projectionVersion: { version: number } | null;
      rebuild: { version: number; applied: number; target: number; percent: number } | null;
      partitions: { highWatermark: number }[];
    };
    const before = await api<Ops>('/api/admin/console/operations', admin);
    expect(before.rebuild).toBeNull();
    // the demo's rebuild takes about 2 s: it is interrupted as soon as its version exists (as a crash or a
    // Ctrl-C would), which leaves the state the page must show until a second run resumes and finishes it
    const first = spawnCli(stack.env, ['rebuild', '--json', '--drop-old-after', '0']);
    await waitFor(
      'the rebuild building its version',
      async () =>
        (await stack.db.query(`SELECT 1 FROM public.projection_versions WHERE status = 'building'`)).length >
        0,
      { timeoutMs: 120000, intervalMs: 50 },
    );
    first.child.kill('SIGKILL');
    await first.exited;
    const building = await stack.db.query<{ version: number }>(
      `SELECT version FROM public.projection_versions WHERE status = 'building'`,
    );
    expect(building).toHaveLength(1); // interrupted before its switch
    const seen: NonNullable<Ops['rebuild']> = await waitFor(
      'the rebuild in the operations answer',
      async () => (await api<Ops>('/api/admin/console/operations', admin)).rebuild!,
    );
    expect(seen.version).toBe(building[0].version);
    expect(seen.version).toBe(before.projectionVersion!.version + 1);
    expect(seen.target).toBe(before.partitions.reduce((n, p) => n + p.highWatermark, 0));
    expect(seen.applied).toBeLessThanOrEqual(seen.target);
    const { page, problems } = await signedIn(admin);
    await page.goto(`${base}/console/#/operations`);
    const bar = await page.waitForSelector('#rebuild-progress');
    expect(
      await bar!.evaluate((p) => [Number(p.getAttribute('value')), Number(p.getAttribute('max'))]),
    ).toEqual([seen.applied, Math.max(1, seen.target)]);
    expect(await page.$eval('label[for="rebuild-progress"]', (l) => l.textContent)).toContain(
      `Building version ${seen.version}`,
    );
    await page.screenshot({ path: join(SHOTS, 'operations-rebuild.png'), fullPage: true });
    expect(await axeSerious(page)).toEqual([]);
    expect(problems).toEqual([]);
    await page.close();
    // a second run resumes the version and switches it in
    const second = spawnCli(stack.env, ['rebuild', '--json', '--drop-old-after', '0']);
    expect(await second.exited).toBe(0);
    const after = await waitFor('the rebuilt version active', async (): Promise<Ops | undefined> => {
      const st = await api<Ops>('/api/admin/console/operations', admin);
      return st.rebuild === null && st.projectionVersion?.version === seen.version ? st : undefined;
    });
    expect(after?.projectionVersion?.version).toBe(seen.version);
  });

  it('the token never appears in a URL', () => {
    expect(seen.length).toBeGreaterThan(10);
    for (const t of [admin, bob]) expect(seen.filter((u) => u.includes(t.slice(5)))).toEqual([]);
  });
});
