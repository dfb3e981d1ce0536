import { readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FlagEvent } from '@flaglens/contract';
import { otherProjects, SDK_EVENT_TYPES } from '@flaglens/projections';
import { createToken } from '@flaglens/testing/support/cli';
import { apiGet } from '@flaglens/testing/support/openapi';
import { startStack, type Stack } from '@flaglens/testing/support/stack';

const SAMPLE = join(__dirname, 'fixtures', 'reference-sample');
const PINNED = '2026-11-22T09:01:00.000Z';
/** 1 ms before the admin favourited `default` (event 98): alice, bob and carol exist, most flags too */
const T = '2026-11-22T08:52:52.190Z';

const read = (file: string): FlagEvent[] =>
  readFileSync(join(SAMPLE, file), 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as FlagEvent);

/**
 * Reads as of an instant over HTTP (docs/design.md, "Reads as of an instant"): every read with `at=T` of a
 * flaglens fed the whole reference sample (its clock after the sample) is byte for byte the same read, without
 * `at`, of a second flaglens fed only the sample's events created up to T, its clock pinned at T.
 */
describe('reads as of an instant equal a flaglens fed the events up to it (two running stacks)', () => {
  let whole: Stack;
  let cut: Stack;
  const tokens: Record<string, Record<string, Record<string, string>>> = { whole: {}, cut: {} };
  /** 1 ms before the cut stack's newest event: reads of it replay (at T, no event after: its own tables) */
  let beforeNewest: string;

  beforeAll(async () => {
    const events = [...read('events.ndjson'), ...read('sdk-events.ndjson')];
    const upToT = events.filter((e) => e.createdAt <= T);
    expect(upToT.length).toBeLessThan(events.length);
    const newest = Math.max(...upToT.map((e) => Date.parse(e.createdAt)));
    beforeNewest = new Date(newest - 1).toISOString();
    const fileOf = (name: string, es: FlagEvent[]) => {
      const f = join(tmpdir(), `as-of-e2e-${name}-${process.pid}.ndjson`);
      writeFileSync(f, es.map((e) => JSON.stringify(e)).join('\n') + '\n');
      return f;
    };
    [whole, cut] = await Promise.all([
      // the whole stack's projector checkpoints every 20 events: the reads with `at` start from one
      startStack('as_of_whole_e2e', { FLAGLENS_CLOCK: PINNED, AS_OF_CHECKPOINT_EVENTS: '20' }),
      // the cut stack is never read with `at` but here, bounded to replays of 10 events: refused; its diffs list
      // 5 events a page
      startStack('as_of_cut_e2e', { FLAGLENS_CLOCK: T, AS_OF_MAX_REPLAY_EVENTS: '10', DIFF_MAX_EVENTS: '5' }),
    ]);
    await whole.publish(fileOf('whole', events));
    await cut.publish(fileOf('cut', upToT));
    await Promise.all([whole.waitForEvents(events.length), cut.waitForEvents(upToT.length)]);
    // the projector's checkpoints up to T (it looks every 10 s once idle)
    const due = Math.floor(upToT.length / 20) - 1;
    const deadline = Date.now() + 60_000;
    const made = async () =>
      whole.db
        .query<{ n: number }>(
          `SELECT count(*)::int AS n FROM flaglens_v1_as_of.checkpoints WHERE upto <= $1`,
          [T],
        )
        .then(([{ n }]) => n)
        // none made yet: no schema of checkpoints
        .catch(() => 0);
    while ((await made()) < due && Date.now() < deadline) await new Promise((r) => setTimeout(r, 500));
    expect(await made()).toBeGreaterThanOrEqual(due);
    for (const [name, stack] of [
      ['whole', whole],
      ['cut', cut],
    ] as const)
      for (const user of ['admin', 'alice@example.com', 'bob@example.com', 'carol'])
        tokens[name][user] = { authorization: await createToken(stack.env, user) };
  });

  afterAll(async () => {
    await Promise.all([whole?.stop(), cut?.stop()]);
  });

  it.each([
    '/api/admin/projects/default/overview',
    '/api/admin/projects/default/overview?archived=true',
    '/api/admin/projects/default/status',
    '/api/admin/personal-dashboard',
    '/api/admin/personal-dashboard/default',
    '/api/admin/user/profile',
    '/api/admin/insights',
    '/api/admin/insights/lifecycle',
    '/api/admin/dashboard/executive',
    '/api/admin/events/checkout.new-flow',
    '/api/admin/search/events?limit=1000',
  ])('%s, for each caller', async (path) => {
    for (const user of Object.keys(tokens.whole)) {
      const then = await apiGet(
        whole.port,
        `${path}${path.includes('?') ? '&' : '?'}at=${T}`,
        tokens.whole[user],
      );
      const fresh = await apiGet(cut.port, path, tokens.cut[user]);
      expect({ user, status: then.status }).toEqual({ user, status: fresh.status });
      expect({ user, body: then.text }).toEqual({ user, body: fresh.text });
    }
  });

  it('a read that would replay more events than AS_OF_MAX_REPLAY_EVENTS: 503 at once, with the reason', async () => {
    const r = await apiGet(
      cut.port,
      `/api/admin/projects/default/overview?at=${beforeNewest}`,
      tokens.cut.admin,
    );
    expect(r.status).toBe(503);
    expect(r.headers['retry-after']).toBeDefined();
    const body = r.json() as { name: string; message: string };
    expect(body.name).toBe('ServiceUnavailableError');
    expect(body.message).toMatch(
      /^as of .+ the read would replay \d+ events from the first, more than the 10 it may \(AS_OF_MAX_REPLAY_EVENTS\)/,
    );
  });

  it('a read as of the newest event or later is not refused: nothing is replayed', async () => {
    const [then, now] = await Promise.all([
      apiGet(cut.port, `/api/admin/projects/default/overview?at=${T}`, tokens.cut.admin),
      apiGet(cut.port, `/api/admin/projects/default/overview`, tokens.cut.admin),
    ]);
    expect(then.status).toBe(200);
    expect(then.text).toBe(now.text);
  });

  it("a diff's events a page at a time: its pages, followed to the end, are the range's events", async () => {
    const diffPath = '/api/admin/projects/default/overview';
    const range = (from: string, to = beforeNewest) =>
      `path=${encodeURIComponent(diffPath)}&from=${from}&to=${to}`;
    // the project's events in the range, from the fixture: its own and the moves naming it, no SDK traffic,
    // in the order createdAt, then id
    const from = '2000-01-01T00:00:00.000Z';
    const expected = [...read('events.ndjson'), ...read('sdk-events.ndjson')]
      .filter((e) => e.createdAt > from && e.createdAt <= T)
      .filter((e) => !SDK_EVENT_TYPES.includes(e.type))
      .filter(
        (e) =>
          e.project === 'default' ||
          (e.type === 'feature-project-change' && otherProjects(e).includes('default')),
      )
      .sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.id - b.id)
      .map((e) => e.id);
    expect(expected.length).toBeGreaterThan(10);
    // from before the first event (nothing to replay) to T (the stack's own tables): the first 5
    const first = await apiGet(cut.port, `/api/admin/diff?${range(from, T)}`, tokens.cut.admin);
    expect(first.status).toBe(200);
    let page = first.json() as { events: { id: number }[]; eventsNext: string | null; to: string };
    expect(page.to).toBe(T);
    const ids = page.events.map((e) => e.id);
    expect(ids).toHaveLength(5);
    // each next page as eventsNext names it, until it is null
    let pages = 1;
    while (page.eventsNext !== null) {
      expect(page.eventsNext).toMatch(/^\/api\/admin\/diff\/events\?/);
      const r = await apiGet(cut.port, page.eventsNext, tokens.cut.admin);
      expect(r.status).toBe(200);
      page = r.json() as typeof page;
      expect(page.to).toBe(T);
      expect(page.events.length).toBeLessThanOrEqual(5);
      ids.push(...page.events.map((e) => e.id));
      pages += 1;
    }
    expect(pages).toBe(Math.ceil(expected.length / 5));
    expect(ids).toEqual(expected);
    // a place that is not one: 400 naming it, in Unleash's envelope
    const bad = await apiGet(cut.port, `/api/admin/diff/events?${range(from)}&after=x`, tokens.cut.admin);
    expect(bad.status).toBe(400);
    expect(bad.json()).toMatchObject({ name: 'BadDataError', details: [{ path: '/query/after' }] });
    // a range of no event, before the newest: the reads' own refusal, with its reason
    const narrow = await apiGet(
      cut.port,
      `/api/admin/diff?${range(new Date(Date.parse(beforeNewest) - 1).toISOString())}`,
      tokens.cut.admin,
    );
    expect({ status: narrow.status, body: narrow.text }).toMatchObject({ status: 503 });
    expect((narrow.json() as { message: string }).message).toMatch(/AS_OF_MAX_REPLAY_EVENTS/);
    // a range of no event, from after the newest to T: both ends read the stack's own tables, nothing changed
    const after = await apiGet(
      cut.port,
      `/api/admin/diff?${range(new Date(Date.parse(beforeNewest) + 1).toISOString(), T)}`,
      tokens.cut.admin,
    );
    expect(after.status).toBe(200);
    expect(after.json()).toMatchObject({ patch: [], events: [], eventsNext: null });
  });
});
