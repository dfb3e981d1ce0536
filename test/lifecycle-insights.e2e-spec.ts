import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FlagEvent } from '@flaglens/contract';
import { testEvent } from '@flaglens/testing/test-events';
import { createToken } from '@flaglens/testing/support/cli';
import { apiGet } from '@flaglens/testing/support/openapi';
import { startStack, type Stack } from '@flaglens/testing/support/stack';

const PINNED = '2026-06-01T12:00:00.000Z';
const ROUTE = '/api/admin/insights/lifecycle';

let nextId = 0;
const ev = (type: string, createdAt: string, o: Partial<FlagEvent> = {}): FlagEvent =>
  testEvent(++nextId, type, { createdAt: new Date(createdAt).toISOString(), ...o });
const flag = (type: string, at: string, name: string, o: Partial<FlagEvent> = {}) =>
  ev(type, at, { featureName: name, project: name.startsWith('vault.') ? 'vault' : 'default', ...o });
const created = (name: string, type: string, at: string) =>
  flag('feature-created', at, name, { data: { name, type } });
/** An SDK's report (keyed `instance`, as the source connector writes them) of flags in one environment. */
const report = (environment: string, start: string, stop: string, flags: string[]) =>
  ev('client-metrics', start, {
    createdBy: 'app',
    createdByUserId: null,
    data: {
      appName: 'app',
      environment,
      bucket: { start, stop, toggles: Object.fromEntries(flags.map((f) => [f, { yes: 1, no: 0 }])) },
    },
  });

/**
 * A history of every stage: as of PINNED,
 * - d.pre (release): pre-live since 2026-05-02 (old); d.new (experiment): pre-live since 2026-05-31 (new);
 *   vault.secret (release, private project): pre-live since 2026-05-20 (old);
 * - d.live (kill-switch): pre-live 2026-05-08, live 2026-05-10 (enabled in production then; old);
 * - d.done (release): completed 2026-05-29 (new); d.gone (release): pre-live 2026-05-03, archived 2026-05-07
 *   (left out of the counts, its 4 days in pre-live are history).
 */
function history(): FlagEvent[] {
  return [
    ev('user-created', '2026-04-30T00:00:00Z', {
      data: { id: 5, name: 'Bob', username: 'bob', email: 'bob@example.com', rootRole: 3 },
    }),
    ev('project-created', '2026-04-30T00:00:00Z', {
      project: 'vault',
      data: { id: 'vault', name: 'Vault', mode: 'private' },
    }),
    created('d.pre', 'release', '2026-05-01T00:00:00Z'),
    created('d.live', 'kill-switch', '2026-05-01T00:00:00Z'),
    created('d.done', 'release', '2026-05-01T00:00:00Z'),
    created('d.gone', 'release', '2026-05-01T00:00:00Z'),
    created('vault.secret', 'release', '2026-05-01T00:00:00Z'),
    created('d.new', 'experiment', '2026-05-30T00:00:00Z'),
    report('development', '2026-05-02T00:00:00Z', '2026-05-02T01:00:00Z', ['d.pre']),
    report('development', '2026-05-03T00:00:00Z', '2026-05-03T01:00:00Z', ['d.gone']),
    flag('feature-archived', '2026-05-07T00:00:00Z', 'd.gone'),
    // reported in production from 05-08 while disabled (pre-live), enabled there on 05-10 (live)
    report('production', '2026-05-08T00:00:00Z', '2026-05-20T00:00:00Z', ['d.live']),
    flag('feature-environment-enabled', '2026-05-10T00:00:00Z', 'd.live', { environment: 'production' }),
    report('development', '2026-05-20T00:00:00Z', '2026-05-20T01:00:00Z', ['vault.secret']),
    flag('feature-completed', '2026-05-29T00:00:00Z', 'd.done', { data: { status: 'kept', kept: true } }),
    report('development', '2026-05-31T00:00:00Z', '2026-05-31T01:00:00Z', ['d.new']),
    // reported in an environment that does not exist: no stage
    report('nowhere', '2026-05-31T00:00:00Z', '2026-05-31T01:00:00Z', ['d.done']),
  ];
}

const counts = (o: number, n: number) => ({ flagsOlderThanWeek: o, newFlagsThisWeek: n });
const stage = (
  c: { experimental?: number[]; permanent?: number[]; release?: number[] },
  medianDaysHistorically: number,
  medianDaysInCurrentStage: number,
) => {
  const categories = {
    experimental: counts(...((c.experimental ?? [0, 0]) as [number, number])),
    permanent: counts(...((c.permanent ?? [0, 0]) as [number, number])),
    release: counts(...((c.release ?? [0, 0]) as [number, number])),
  };
  const totalFlags = Object.values(categories).reduce(
    (s, x) => s + x.flagsOlderThanWeek + x.newFlagsThisWeek,
    0,
  );
  return { categories, medianDaysHistorically, medianDaysInCurrentStage, totalFlags };
};

describe('GET /api/admin/insights/lifecycle (running apps, real Kafka and Postgres)', () => {
  let stack: Stack;
  let port: number;
  let asAdmin: Record<string, string>;
  let asBob: Record<string, string>;
  const events = history();

  const publish = async (name: string, list: FlagEvent[]) => {
    const file = join(tmpdir(), `lifecycle-e2e-${process.pid}-${name}.ndjson`);
    writeFileSync(file, list.map((e) => JSON.stringify(e)).join('\n') + '\n');
    await stack.publish(file);
  };

  beforeAll(async () => {
    stack = await startStack('lifecycle_e2e', { FLAGLENS_CLOCK: PINNED });
    port = stack.port;
    await publish('history', events);
    await stack.waitForEvents(events.length);
    asAdmin = { authorization: await createToken(stack.env, 'admin') };
    asBob = { authorization: await createToken(stack.env, 'bob@example.com') };
  });

  afterAll(async () => {
    await stack?.stop();
  });

  it('needs a token', async () => {
    expect((await apiGet(port, ROUTE)).status).toBe(401);
  });

  it("answers each stage's flags by category, new within 7 days, and the medians in days", async () => {
    const res = await apiGet(port, ROUTE, asAdmin);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.json()).toEqual({
      lifecycleTrends: {
        // d.pre 30.5 days, vault.secret 12.5, d.new 1.5; history: d.live 2 days, d.gone 4
        develop: stage({ experimental: [0, 1], release: [2, 0] }, 3, 12.5),
        // d.live 22.5 days
        production: stage({ permanent: [1, 0] }, 0, 22.5),
        // d.done 3.5 days; nothing has left completed
        cleanup: stage({ release: [0, 1] }, 0, 3.5),
      },
    });
    // the reference's UI asks with `projects=` when no project is chosen: every project
    expect((await apiGet(port, `${ROUTE}?projects=`, asAdmin)).text).toBe(res.text);
    expect((await apiGet(port, `${ROUTE}?projects=vault,default`, asAdmin)).text).toBe(res.text);
  });

  it('as of an instant (at=): the summary of a flaglens fed the events up to it; never the cached one', async () => {
    for (let i = 0; i < 3; i++) await apiGet(port, ROUTE, asAdmin); // the answer of now, cached
    const now = await apiGet(port, ROUTE, asAdmin);
    expect(
      (await apiGet(port, `${ROUTE}?at=${encodeURIComponent('2026-06-01T14:00:00+02:00')}`, asAdmin)).text,
    ).toBe(now.text);
    // before the first event: no flag in any stage
    const before = (await apiGet(port, `${ROUTE}?at=2020-01-01T00:00:00Z`, asAdmin)).json() as {
      lifecycleTrends: Record<
        string,
        { categories: Record<string, { flagsOlderThanWeek: number; newFlagsThisWeek: number }> }
      >;
    };
    for (const stage of Object.values(before.lifecycleTrends))
      for (const c of Object.values(stage.categories))
        expect(c.flagsOlderThanWeek + c.newFlagsThisWeek).toBe(0);
    const bad = await apiGet(port, `${ROUTE}?at=yesterday`, asAdmin);
    expect(bad.status).toBe(400);
    expect(bad.json()).toMatchObject({ name: 'BadDataError', details: [{ path: '/query/at' }] });
    expect((await apiGet(port, ROUTE, asAdmin)).text).toBe(now.text);
  });

  it('keeps the flags of the projects asked for', async () => {
    const res = await apiGet(port, `${ROUTE}?projects=vault`, asAdmin);
    expect(res.status).toBe(200);
    expect(res.json()).toEqual({
      lifecycleTrends: {
        develop: stage({ release: [1, 0] }, 0, 12.5),
        production: stage({}, 0, 0),
        cleanup: stage({}, 0, 0),
      },
    });
  });

  it('leaves out the flags of a private project the caller is not a member of', async () => {
    const res = await apiGet(port, ROUTE, asBob);
    expect(res.status).toBe(200);
    const body = res.json() as { lifecycleTrends: Record<string, unknown> };
    expect(body.lifecycleTrends.develop).toEqual(stage({ experimental: [0, 1], release: [1, 0] }, 3, 16));
    expect((await apiGet(port, `${ROUTE}?projects=vault`, asBob)).json()).toEqual({
      lifecycleTrends: { develop: stage({}, 0, 0), production: stage({}, 0, 0), cleanup: stage({}, 0, 0) },
    });
  });

  it('bad input is 400 BadDataError in the error envelope', async () => {
    for (const q of ['projects=a&projects=b', `projects=${'x'.repeat(101)}`, 'projects=a%00b']) {
      const res = await apiGet(port, `${ROUTE}?${q}`, asAdmin);
      expect([q, res.status]).toEqual([q, 400]);
      expect(res.json()).toMatchObject({
        name: 'BadDataError',
        message: expect.stringContaining('"projects"'),
        details: [{ message: expect.stringContaining('"projects"') }],
      });
    }
  });

  it('a cached answer is dropped when the projector applies a change', async () => {
    const before = (await apiGet(port, ROUTE, asAdmin)).json() as {
      lifecycleTrends: Record<string, unknown>;
    };
    expect((await apiGet(port, ROUTE, asAdmin)).json()).toEqual(before);
    const more = [
      flag('feature-completed', '2026-05-31T00:00:00Z', 'd.pre', {
        data: { status: 'discarded', kept: false },
      }),
    ];
    await publish('more', more);
    await stack.waitForEvents(events.length + more.length);
    const after = (await apiGet(port, ROUTE, asAdmin)).json() as { lifecycleTrends: Record<string, unknown> };
    // d.pre left pre-live after 29 days (history 4 → median of 2, 4, 29) for completed (new, release)
    expect(after.lifecycleTrends.develop).toEqual(stage({ experimental: [0, 1], release: [1, 0] }, 4, 7));
    expect(after.lifecycleTrends.cleanup).toEqual(stage({ release: [0, 2] }, 0, 2.5));
  });
});
