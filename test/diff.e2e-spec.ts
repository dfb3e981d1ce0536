import { readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { applyPatch, deepClone, type Operation } from 'fast-json-patch';
import type { FlagEvent } from '@flaglens/contract';
import { REFERENCE_SAMPLE, referenceSampleEvents } from '@flaglens/testing/reference-sample';
import { createToken } from '@flaglens/testing/support/cli';
import { apiGet } from '@flaglens/testing/support/openapi';
import { startStack, type Stack } from '@flaglens/testing/support/stack';

const PINNED = '2026-11-22T09:01:00.000Z';

const sdkEvents = (): FlagEvent[] =>
  readFileSync(join(REFERENCE_SAMPLE, 'sdk-events.ndjson'), 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as FlagEvent);

/** The reads that take `at=`, over the reference sample's projects and flags. */
const READS = [
  '/api/admin/projects/default/overview',
  '/api/admin/projects/default/status',
  '/api/admin/personal-dashboard',
  '/api/admin/personal-dashboard/default',
  '/api/admin/user/profile',
  '/api/admin/insights',
  '/api/admin/insights/lifecycle',
  '/api/admin/dashboard/executive',
  '/api/admin/events/checkout.new-flow',
  '/api/admin/events/experiment.pricing-page',
  '/api/admin/events?project=default',
  '/api/admin/search/events?type=feature-created',
];

const q = (path: string) => (path.includes('?') ? '&' : '?');

/** A project created after the sample's last event (outside the property's instants), before the pinned now. */
const LATER_PROJECT: FlagEvent = {
  id: 100_001,
  type: 'project-created',
  createdAt: '2026-11-22T08:58:00.000Z',
  createdBy: 'admin',
  createdByUserId: 1,
  project: 'later',
  featureName: null,
  environment: null,
  data: { id: 'later', name: 'Later', description: null, mode: 'open', defaultStickiness: 'default' },
  preData: null,
  tags: [],
};

/**
 * `GET /api/admin/diff` over HTTP, the reference sample in a running stack: for random reads, callers and pairs of
 * instants, `before` and `after` are the read's own answers with `at=` each instant, the patch applied to
 * `before` (by another implementation of RFC 6902) gives `after`, and `events` are the scope's events in
 * (from, to], oldest first. Then its refusals, in Unleash's envelope.
 */
describe('what changed between two instants (running stack)', () => {
  let stack: Stack;
  const tokens: Record<string, Record<string, string>> = {};
  let events: FlagEvent[];

  beforeAll(async () => {
    events = referenceSampleEvents();
    const all = [...events, ...sdkEvents(), LATER_PROJECT];
    const file = join(tmpdir(), `diff-e2e-${process.pid}.ndjson`);
    writeFileSync(file, all.map((e) => JSON.stringify(e)).join('\n') + '\n');
    stack = await startStack('diff_e2e', { FLAGLENS_CLOCK: PINNED });
    await stack.publish(file);
    await stack.waitForEvents(all.length);
    for (const user of ['admin', 'alice@example.com', 'carol'])
      tokens[user] = { authorization: await createToken(stack.env, user) };
  });

  afterAll(async () => {
    await stack?.stop();
  });

  const instants = () => {
    const times = events.map((e) => Date.parse(e.createdAt));
    const lo = Math.min(...times) - 1000;
    const hi = Math.max(...times) + 1000;
    return fc
      .tuple(fc.integer({ min: lo, max: hi }), fc.integer({ min: lo, max: hi }))
      .filter(([a, b]) => a !== b)
      .map(([a, b]) => [new Date(Math.min(a, b)).toISOString(), new Date(Math.max(a, b)).toISOString()]);
  };

  it('property: before and after are the at= answers, the patch turns one into the other, events are the range', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...READS),
        fc.constantFrom('admin', 'alice@example.com', 'carol'),
        instants(),
        async (path, user, [from, to]) => {
          const r = await apiGet(
            stack.port,
            `/api/admin/diff?path=${encodeURIComponent(path)}&from=${from}&to=${to}`,
            tokens[user],
          );
          const [atFrom, atTo] = await Promise.all([
            apiGet(stack.port, `${path}${q(path)}at=${from}`, tokens[user]),
            apiGet(stack.port, `${path}${q(path)}at=${to}`, tokens[user]),
          ]);
          if (atFrom.status !== 200 || atTo.status !== 200) {
            // the read refuses the caller: the diff answers as the read does
            expect(r.status).toBe(atFrom.status !== 200 ? atFrom.status : atTo.status);
            return;
          }
          expect(r.status).toBe(200);
          const d = r.json() as {
            path: string;
            from: string;
            to: string;
            before: unknown;
            after: unknown;
            patch: Operation[];
            events: FlagEvent[];
          };
          expect({ path: d.path, from: d.from, to: d.to }).toEqual({ path, from, to });
          expect(d.before).toEqual(atFrom.json());
          expect(d.after).toEqual(atTo.json());
          expect(applyPatch(deepClone(d.before), d.patch, true, false).newDocument).toEqual(d.after);
          for (const e of d.events) {
            expect(e.createdAt > from && e.createdAt <= to).toBe(true);
            if (path.startsWith('/api/admin/events/')) expect(e.featureName).toBe(path.split('/').pop());
          }
          const times = d.events.map((e) => e.createdAt);
          expect(times).toEqual([...times].sort());
        },
      ),
      { numRuns: 30 },
    );
  });

  it("a flag's list: its events in the range, and the patch adds them at the head", async () => {
    const flag = events.filter((e) => e.featureName === 'checkout.new-flow');
    const from = flag[4].createdAt;
    const to = flag[9].createdAt;
    const r = await apiGet(
      stack.port,
      `/api/admin/diff?path=/api/admin/events/checkout.new-flow&from=${from}&to=${to}`,
      tokens.admin,
    );
    expect(r.status).toBe(200);
    const d = r.json() as { events: FlagEvent[]; patch: Operation[] };
    expect(d.events.map((e) => e.id)).toEqual(
      flag.filter((e) => e.createdAt > from && e.createdAt <= to).map((e) => e.id),
    );
    const added = d.patch.filter((o) => o.op === 'add' && /^\/events\/\d+$/.test(o.path));
    expect(added).toHaveLength(d.events.length);
    expect(d.patch.filter((o) => o.op === 'remove')).toEqual([]);
  });

  it.each([
    ['no path', '/api/admin/diff?from=2026-11-22T08:52:00Z', '/query/path'],
    [
      'not a read as of an instant',
      '/api/admin/diff?path=/api/admin/console/projects&from=2026-11-22T08:52:00Z',
      '/query/path',
    ],
    [
      'a path with at',
      `/api/admin/diff?path=${encodeURIComponent('/api/admin/insights?at=2026-11-22T08:52:00Z')}&from=2026-11-22T08:52:00Z`,
      '/query/path',
    ],
    [
      'another origin',
      `/api/admin/diff?path=${encodeURIComponent('http://evil.example/api/admin/insights')}&from=2026-11-22T08:52:00Z`,
      '/query/path',
    ],
    ['no from', '/api/admin/diff?path=/api/admin/insights', '/query/from'],
    ['a malformed from', '/api/admin/diff?path=/api/admin/insights&from=yesterday', '/query/from'],
    [
      'a malformed to',
      '/api/admin/diff?path=/api/admin/insights&from=2026-11-22T08:52:00Z&to=2026-13-01',
      '/query/to',
    ],
    [
      'a reversed range',
      '/api/admin/diff?path=/api/admin/insights&from=2026-11-22T08:53:00Z&to=2026-11-22T08:52:00Z',
      '/query/from',
    ],
  ])('%s: 400 in the reference envelope', async (_what, url, where) => {
    const r = await apiGet(stack.port, url, tokens.admin);
    expect(r.status).toBe(400);
    expect(r.json()).toMatchObject({ name: 'BadDataError', details: [{ path: where }] });
  });

  it('a project created in the range is null before it: the patch replaces the whole answer', async () => {
    const [from, to] = ['2026-11-22T08:57:00.000Z', '2026-11-22T08:59:00.000Z'];
    const path = '/api/admin/projects/later/overview';
    const r = await apiGet(stack.port, `/api/admin/diff?path=${path}&from=${from}&to=${to}`, tokens.admin);
    expect(r.status).toBe(200);
    const then = await apiGet(stack.port, `${path}?at=${from}`, tokens.admin);
    const now = await apiGet(stack.port, `${path}?at=${to}`, tokens.admin);
    expect([then.status, now.status]).toEqual([404, 200]);
    const d = r.json() as { before: unknown; after: unknown; patch: unknown[]; events: { id: number }[] };
    expect(d.before).toBeNull();
    expect(d.after).toEqual(now.json());
    expect(d.patch).toEqual([{ op: 'replace', path: '', value: now.json() }]);
    expect(d.events.map((e) => e.id)).toEqual([LATER_PROJECT.id]);
    // and reversed in time it is never refused for being absent at one side only: both sides absent is a 404
    const before = await apiGet(
      stack.port,
      `/api/admin/diff?path=${path}&from=2026-11-22T08:55:00Z&to=2026-11-22T08:57:00Z`,
      tokens.admin,
    );
    expect(before.status).toBe(404);
  });

  it('an unknown project: 404 as the overview answers; no credentials: 401', async () => {
    const r = await apiGet(
      stack.port,
      '/api/admin/diff?path=/api/admin/projects/nope/overview&from=2026-11-22T08:52:00Z',
      tokens.admin,
    );
    expect(r.status).toBe(404);
    expect(r.json()).toMatchObject({ name: 'NotFoundError' });
    expect(
      (await apiGet(stack.port, '/api/admin/diff?path=/api/admin/insights&from=2026-11-22T08:52:00Z')).status,
    ).toBe(401);
  });
});
