import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateHistory } from '@flaglens/testing/generate-history';
import { validateInsights } from '@flaglens/testing/insights-shape';
import { createToken } from '@flaglens/testing/support/cli';
import { apiGet } from '@flaglens/testing/support/openapi';
import { startStack, type Stack } from '@flaglens/testing/support/stack';
import { Database, searchPathOption } from '@flaglens/persistence';
import { IdentityReadModel, InsightsReadModel } from '@flaglens/projections';

const PINNED = '2026-06-01T12:00:00.000Z';

describe('GET /api/admin/insights and /api/admin/dashboard/executive (running apps, real Kafka and Postgres)', () => {
  let stack: Stack;
  let port: number;
  let asAdmin: Record<string, string>;
  const history = generateHistory({
    seed: 9,
    projects: 3,
    flagsPerProject: 20,
    events: 800,
    weeks: 26,
    end: PINNED,
  });

  beforeAll(async () => {
    stack = await startStack('insights_e2e', { FLAGLENS_CLOCK: PINNED });
    port = stack.port;
    const file = join(tmpdir(), `insights-e2e-${process.pid}.ndjson`);
    writeFileSync(file, history.map((e) => JSON.stringify(e)).join('\n') + '\n');
    await stack.publish(file);
    await stack.waitForEvents(history.length);
    asAdmin = { authorization: await createToken(stack.env, 'admin') };
  });

  afterAll(async () => {
    await stack?.stop();
  });

  it('needs a token', async () => {
    expect((await apiGet(port, '/api/admin/insights')).status).toBe(401);
  });

  it('the deprecated report: 200 JSON, every week, api-spec 2.13, deprecation headers', async () => {
    const res = await apiGet(port, '/api/admin/dashboard/executive', asAdmin);
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
    expect((await apiGet(port, '/api/admin/insights?from=&to=', asAdmin)).text).toBe(res.text);
  });

  it('a range selects weeks by date; a malformed date is 400 BadDataError', async () => {
    const res = await apiGet(port, '/api/admin/insights?from=2026-05-01&to=2026-05-31', asAdmin);
    expect(res.status).toBe(200);
    const body = res.json() as { flagTrends: { date: string }[] };
    expect(body.flagTrends.map((r) => r.date)).toEqual([
      '2026-05-03T23:59:59.999Z',
      '2026-05-10T23:59:59.999Z',
      '2026-05-17T23:59:59.999Z',
      '2026-05-24T23:59:59.999Z',
      '2026-05-31T23:59:59.999Z',
    ]);
    const bad = await apiGet(port, '/api/admin/insights?from=2026-13-01', asAdmin);
    expect(bad.status).toBe(400);
    expect(bad.json()).toMatchObject({ name: 'BadDataError' });
  });

  it('as of an instant (at=): the report of a flaglens fed the events up to it; never the cached one', async () => {
    for (let i = 0; i < 3; i++) await apiGet(port, '/api/admin/insights', asAdmin); // the answer of now, cached
    const now = await apiGet(port, '/api/admin/insights', asAdmin);
    // at the clock's instant (the history ends there): the answer of now, byte for byte
    expect((await apiGet(port, `/api/admin/insights?at=${PINNED}`, asAdmin)).text).toBe(now.text);
    // a Sunday of the history: its weeks end there, "today" being that day
    const then = await apiGet(port, '/api/admin/insights?at=2026-03-15T12:00:00Z', asAdmin);
    expect(then.status).toBe(200);
    const body = then.json() as Record<string, { date: string }[]>;
    expect(validateInsights(body)).toEqual([]);
    expect(body.flagTrends.at(-1)!.date).toBe('2026-03-15T23:59:59.999Z');
    expect(body.flagTrends.every((r) => r.date <= '2026-03-15T23:59:59.999Z')).toBe(true);
    expect(body.flagTrends.length).toBeLessThan((now.json() as typeof body).flagTrends.length);
    // a range is read as of the instant too
    const range = await apiGet(port, '/api/admin/insights?from=2026-03-01&at=2026-03-15T12:00:00Z', asAdmin);
    expect((range.json() as typeof body).flagTrends.map((r) => r.date)).toEqual([
      '2026-03-01T23:59:59.999Z',
      '2026-03-08T23:59:59.999Z',
      '2026-03-15T23:59:59.999Z',
    ]);
    const bad = await apiGet(port, '/api/admin/insights?at=2026-03-15', asAdmin);
    expect(bad.status).toBe(400);
    expect(bad.json()).toMatchObject({ name: 'BadDataError', details: [{ path: '/query/at' }] });
    expect((await apiGet(port, '/api/admin/insights', asAdmin)).text).toBe(now.text);
  });

  it('the projector stores the closed weeks; the answer is the reference computation byte for byte', async () => {
    const ds = new Database({
      url: stack.env.DATABASE_URL,
      max: 2,
      options: searchPathOption('flaglens_v1'),
    });
    try {
      const marker = async () =>
        (await ds.query<{ valid_until: string }>(`SELECT valid_until::text FROM insights_weeks_stored`))[0];
      for (let i = 0; i < 100 && (await marker()).valid_until !== '2026-06-01'; i++)
        await new Promise((r) => setTimeout(r, 200));
      expect(await marker()).toEqual({ valid_until: '2026-06-01' });
      const identity = new IdentityReadModel(ds);
      const reference = new InsightsReadModel(
        ds,
        (x) => identity.countMembersOfProjects(x),
        undefined,
        false,
      );
      const res = await apiGet(port, '/api/admin/insights', asAdmin);
      expect(res.text).toBe(JSON.stringify(await reference.report(new Date(PINNED))));
    } finally {
      await ds.end();
    }
  });
});
