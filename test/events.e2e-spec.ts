import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Kafka } from 'kafkajs';
import { createToken } from '@flaglens/testing/support/cli';
import { produce } from '@flaglens/testing/support/test-kafka';
import { flagEvent, toMessage } from '@flaglens/testing/support/event-factory';
import { apiGet } from '@flaglens/testing/support/openapi';
import { startStack, type Stack } from '@flaglens/testing/support/stack';
import { waitFor } from '@flaglens/testing/support/wait-for';

const SAMPLE = join(__dirname, 'fixtures', 'reference-sample');

interface Captured {
  request: { method: string; path: string; as?: string; auth?: string };
  status: number;
  contentType: string;
  body: {
    version: number;
    toggleName?: string;
    events: { id: number; createdAt: string }[];
    totalEvents: number;
  };
}

const load = (file: string): Captured => JSON.parse(readFileSync(file, 'utf8'));

/**
 * Newest first by createdAt, then id; the reference has no tie-breaker
 * (docs/design.md#where-flaglens-differs-on-purpose).
 */
const byDesignOrder = (a: { id: number; createdAt: string }, b: { id: number; createdAt: string }) =>
  a.createdAt < b.createdAt ? 1 : a.createdAt > b.createdAt ? -1 : b.id - a.id;

describe('GET /api/admin/events/{featureName} (running apps, real Kafka and Postgres)', () => {
  let stack: Stack;
  let kafka: Kafka;
  let topic: string;
  let port: number;
  let auth: Record<string, string>;
  const bigFlag = Array.from({ length: 150 }, (_, i) => flagEvent(1000 + i, 'big.flag', Math.floor(i / 3)));

  beforeAll(async () => {
    stack = await startStack('events_e2e');
    ({ kafka, topic, port } = stack);
    // publish the reference sample through the operator CLI
    expect(await stack.publish(join(SAMPLE, 'events.ndjson'))).toMatch(/sent 101 event\(s\)/);
    // a flag with more events than the reference's page of 100, several sharing one createdAt
    await produce(kafka, topic, bigFlag.map(toMessage));
    await stack.waitForEvents(101 + bigFlag.length);
    // authentication is on by default: the initial admin's personal access token, issued with the CLI
    auth = { authorization: await createToken(stack.env, 'admin') };
  });

  afterAll(async () => {
    await stack?.stop();
  });

  const flagFiles = readdirSync(join(SAMPLE, 'responses', 'events')).filter((f) => f.endsWith('.json'));

  it.each(flagFiles)('answers %s as the reference did (ties ordered by id desc)', async (file) => {
    const captured = load(join(SAMPLE, 'responses', 'events', file));
    const res = await apiGet(port, captured.request.path, auth);
    expect(res.status).toBe(captured.status);
    expect(res.headers['content-type']).toBe(captured.contentType);
    const expected = { ...captured.body, events: [...captured.body.events].sort(byDesignOrder) };
    // same bytes as the reference would send for this order: key order included
    expect(res.text).toBe(JSON.stringify(expected));
  });

  it('returns every event of a flag, beyond the reference limit of 100, newest first, ties by id desc', async () => {
    const body = (await apiGet(port, '/api/admin/events/big.flag', auth)).json() as Captured['body'];
    expect(body.totalEvents).toBe(150);
    expect(body.events).toHaveLength(150);
    // by hand: timestamps step every 3 events, so ids 1149, 1148, 1147 share the newest createdAt
    expect(body.events.map((e) => e.id)).toEqual(Array.from({ length: 150 }, (_, i) => 1149 - i));
    expect(body.events[0]).toEqual(bigFlag[149]);
  });

  it('shows a newly projected event at once, even right after the list was read (cache dropped on commit)', async () => {
    const path = '/api/admin/events/fresh.flag';
    await produce(kafka, topic, [toMessage(flagEvent(5000, 'fresh.flag', 1))]);
    await waitFor(
      'first event visible',
      async () => ((await apiGet(port, path, auth)).json() as Captured['body']).totalEvents === 1,
    );
    for (let i = 0; i < 5; i++) await apiGet(port, path, auth); // cached now
    const t0 = Date.now();
    await produce(kafka, topic, [toMessage(flagEvent(5001, 'fresh.flag', 2))]);
    const body = await waitFor(
      'second event visible',
      async () => {
        const b = (await apiGet(port, path, auth)).json() as Captured['body'];
        return b.totalEvents === 2 ? b : null;
      },
      { timeoutMs: 10000, intervalMs: 20 },
    );
    expect(body!.events.map((e) => e.id)).toEqual([5001, 5000]);
    expect(Date.now() - t0).toBeLessThan(5000);
  });

  const errorCases = [
    'events-space.json',
    'events-encoded-slash.json',
    'events-unicode.json',
    'events-300-chars.json',
    'events-wrong-case.json',
    'events-dot-dot.json',
    'events-unknown-flag.json',
    'events-trailing-slash.json',
  ];
  it.each(errorCases)('%s: same status and body as the reference', async (file) => {
    const captured = load(join(SAMPLE, 'responses', 'errors', file));
    const res = await apiGet(port, captured.request.path, auth);
    expect(res.status).toBe(captured.status);
    const expected = { ...captured.body, events: [...(captured.body.events ?? [])].sort(byDesignOrder) };
    expect(res.json()).toEqual(expected);
  });

  it('answers a path with a raw slash with the reference 404 envelope', async () => {
    const captured = load(join(SAMPLE, 'responses', 'errors', 'events-raw-slash.json')) as unknown as {
      status: number;
      body: Record<string, unknown>;
    };
    const res = await apiGet(port, '/api/admin/events/a/b', auth);
    expect(res.status).toBe(404);
    const body = res.json() as Record<string, unknown>;
    expect(Object.keys(body)).toEqual(['id', 'name', 'message', 'details']);
    expect({ ...body, id: 'x' }).toEqual({ ...captured.body, id: 'x' });
    expect(body.id).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('answers a malformed escape with 400 in the envelope, not a stack trace (documented difference)', async () => {
    const res = await apiGet(port, '/api/admin/events/%E0%A4%A', auth);
    expect(res.status).toBe(400);
    const body = res.json() as { name: string; message: string; details: { message: string }[] };
    expect(body.name).toBe('BadDataError');
    expect(body.details).toEqual([{ message: body.message }]);
    expect(res.text).not.toMatch(/stack|node_modules|at /);
  });

  describe('as of an instant (at=, docs/design.md "Reads as of an instant")', () => {
    // 00:00:10Z: big.flag's events i = 0..32 (createdAt base + floor(i / 3) s), written with an offset
    const AT = encodeURIComponent('2026-01-01T01:00:10+01:00');
    type SearchBody = { events: { id: number; createdAt: string }[]; total: number };

    it('refuses a malformed instant on both routes with 400 BadDataError', async () => {
      // even where the answer of now is cached
      for (let i = 0; i < 3; i++) await apiGet(port, '/api/admin/events/big.flag', auth);
      for (const path of [
        '/api/admin/events/big.flag?at=yesterday',
        '/api/admin/events/no.such.flag?at=2026-01-01',
        // an unencoded + is a space in a query string
        '/api/admin/events/big.flag?at=2026-01-01T01:00:10+01:00',
        '/api/admin/search/events?at=2026-13-01T00:00:00Z',
        '/api/admin/search/events?at=1&at=2',
      ]) {
        const res = await apiGet(port, path, auth);
        expect(res.status).toBe(400);
        const body = res.json() as { name: string; details: { message: string; path: string }[] };
        expect(body.name).toBe('BadDataError');
        expect(body.details).toEqual([
          { message: expect.stringMatching(/^The `\/query\/at` property must/), path: '/query/at' },
        ]);
      }
    });

    it("answers a flag's events up to the instant, never the cached answer of now; a late event shows", async () => {
      const path = '/api/admin/events/big.flag';
      for (let i = 0; i < 3; i++) await apiGet(port, path, auth); // the answer of now, cached
      const now = (await apiGet(port, path, auth)).json() as Captured['body'];
      const res = await apiGet(port, `${path}?at=${AT}`, auth);
      expect(res.status).toBe(200);
      const then = res.json() as Captured['body'];
      expect(then.events.map((e) => e.id)).toEqual(Array.from({ length: 33 }, (_, i) => 1032 - i));
      expect(then).toEqual({
        ...now,
        events: now.events.filter((e) => e.createdAt <= '2026-01-01T00:00:10.000Z'),
        totalEvents: 33,
      });
      // before the first event: as an unknown flag answers
      const before = (await apiGet(port, `${path}?at=2025-12-31T23:59:59.999Z`, auth)).json();
      expect(before).toEqual({ version: 1, toggleName: 'big.flag', events: [], totalEvents: 0 });

      // a late event: a high id with an old createdAt (as Unleash 7's amend rows): the past answer changes
      await produce(kafka, topic, [toMessage(flagEvent(6000, 'big.flag', 15))]); // createdAt 00:00:15Z
      await produce(kafka, topic, [toMessage(flagEvent(6001, 'big.flag', 5))]); // createdAt 00:00:05Z
      const late = await waitFor('the late event in the past answer', async () => {
        const b = (await apiGet(port, `${path}?at=${AT}`, auth)).json() as Captured['body'];
        return b.totalEvents === 34 ? b : null;
      });
      // newest first, the id breaking the tie with i = 15..17 (00:00:05Z)
      expect(late!.events.map((e) => e.id).slice(15, 19)).toEqual([6001, 1017, 1016, 1015]);
      expect(late!.events.map((e) => e.id)).not.toContain(6000);
    });

    it('searches the events created up to the instant, counted the same way', async () => {
      const q = '/api/admin/search/events?feature=IS:big.flag&limit=1000';
      const now = (await apiGet(port, q, auth)).json() as SearchBody;
      const res = await apiGet(port, `${q}&at=${AT}`, auth);
      expect(res.status).toBe(200);
      const then = res.json() as SearchBody;
      const expected = now.events.filter((e) => e.createdAt <= '2026-01-01T00:00:10.000Z');
      expect(then).toEqual({ events: expected, total: expected.length });
      expect(then.total).toBe(34); // 33, and the late event 6001
    });
  });

  it('serves the published event contract and the OpenAPI document', async () => {
    const schema = await apiGet(port, '/schemas/feature-event.json');
    expect(schema.status).toBe(200);
    expect((schema.json() as { title: string }).title).toBe('FeatureEvent');
    const docs = await apiGet(port, '/docs-json');
    expect(docs.status).toBe(200);
    expect(Object.keys((docs.json() as { paths: object }).paths)).toContain(
      '/api/admin/events/{featureName}',
    );
  });
});
