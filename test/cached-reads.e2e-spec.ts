import { request } from 'node:http';
import { join } from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { createToken } from '@flaglens/testing/support/cli';
import { httpGet } from '@flaglens/testing/support/http';
import { startStack, type Stack } from '@flaglens/testing/support/stack';
import { waitFor } from '@flaglens/testing/support/wait-for';

const SAMPLE = join(__dirname, 'fixtures', 'reference-sample');

/** A counter of the api labelled by route: its value for a route (0 when absent). */
const routeCounter =
  (name: string) =>
  (metrics: string, route: string): number =>
    Number(
      new RegExp(`^${name}\\{[^}]*route="${route.replace(/[/:]/g, '\\$&')}"[^}]*\\} (\\d+)`, 'm').exec(
        metrics,
      )?.[1] ?? 0,
    );
/** Answers from the caches, and misses loaded before the Nest pipeline, by route. */
const hits = routeCounter('flaglens_api_cached_replies_total');
const loaded = routeCounter('flaglens_api_loaded_replies_total');

/** Routes whose misses, for a known caller, are loaded before the Nest pipeline too. */
const LOADED_ROUTES = new Set(['/api/admin/events/:featureName', '/api/admin/projects/:projectId/overview']);

/** Request lines nestjs-pino wrote for a path (the Nest pipeline's per-request log). */
const requestLines = (logs: string[], path: string): number =>
  logs
    .join('')
    .split('\n')
    .filter((l) => l.includes('"request completed"') && l.includes(`"url":"${path}"`)).length;

/** A GET whose body is kept as sent (not decoded). */
function getRaw(
  port: number,
  path: string,
  headers: Record<string, string>,
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }),
      );
    });
    req.on('error', reject);
    req.end();
  });
}

/**
 * The hot path of the reads (apps/api/src/reads/cached-reads.ts): a cached answer to a cached caller is sent
 * before the Nest pipeline (no guard, no query bus, no per-request log line), with the same bytes, headers,
 * ETag and 304 as the full path; what is not cached takes the full path.
 */
/** a few of helmet's headers, which every answer carries */
const SECURITY = {
  'x-content-type-options': 'nosniff',
  'strict-transport-security': 'max-age=31536000; includeSubDomains',
  'x-frame-options': 'SAMEORIGIN',
  'cross-origin-resource-policy': 'same-origin',
};

describe('cached reads: the hot path (running apps, real Kafka and Postgres)', () => {
  let stack: Stack;
  let admin: Record<string, string>;
  const metrics = async () => (await httpGet(stack.port, '/metrics')).text;

  beforeAll(async () => {
    stack = await startStack('cached_reads', { FLAGLENS_CLOCK: '2026-11-22T09:01:00Z', LOG_LEVEL: 'info' });
    expect(await stack.publish(join(SAMPLE, 'events.ndjson'))).toMatch(/sent 101 event\(s\)/);
    await stack.waitForEvents(101);
    admin = { authorization: await createToken(stack.env, 'admin') };
    // the caller known (cached) from here on, through a route none of the cases read
    expect((await httpGet(stack.port, '/api/admin/events', admin)).status).toBe(200);
  });

  afterAll(async () => {
    await stack?.stop();
  });

  it.each([
    ['/api/admin/user/profile', '/api/admin/user/profile'],
    ['/api/admin/events/checkout.new-flow', '/api/admin/events/:featureName'],
    ['/api/admin/projects/default/overview', '/api/admin/projects/:projectId/overview'],
    ['/api/admin/insights', '/api/admin/insights'],
  ])('%s: a second read is a hit that skips the Nest pipeline, with the same answer', async (path, route) => {
    const before = hits(await metrics(), route);
    const loadedBefore = loaded(await metrics(), route);
    const first = await httpGet(stack.port, path, admin);
    expect(first.status).toBe(200);
    expect(hits(await metrics(), route)).toBe(before); // a miss
    let logged = 0;
    if (LOADED_ROUTES.has(route)) {
      // loaded before the Nest pipeline as well: counted, not logged one by one (checked below with the hit)
      expect(loaded(await metrics(), route)).toBe(loadedBefore + 1);
    } else {
      // the full path: the line is written when the response has been sent, and reaches this process through a
      // pipe: wait for it
      logged = await waitFor(
        `the request line of ${path}`,
        () => Promise.resolve(requestLines(stack.logs, path)),
        {
          timeoutMs: 10000,
          intervalMs: 20,
        },
      );
    }
    const second = await httpGet(stack.port, path, admin);
    expect(second.status).toBe(200);
    expect(second.text).toBe(first.text);
    const { date: _d, ...sameHeaders } = first.headers;
    const { date: _d2, ...hitHeaders } = second.headers;
    expect(hitHeaders).toEqual(sameHeaders);
    expect(String(second.headers.etag)).toMatch(/^W\/"/);
    // helmet's headers (computed once at start-up) on both paths
    for (const r of [first, second]) expect(r.headers).toMatchObject(SECURITY);
    expect(hits(await metrics(), route)).toBe(before + 1);
    // not through Nest: no request line for the hit (the query bus and the guard are behind the same pipeline).
    // The api logs in order: once the line of a later, logged request has arrived, the hit's would have too.
    const marker = `/api/admin/no-such-route-${Date.now()}`;
    expect((await httpGet(stack.port, marker, admin)).status).toBe(404);
    await waitFor(`the request line of ${marker}`, () => Promise.resolve(requestLines(stack.logs, marker)), {
      timeoutMs: 10000,
      intervalMs: 20,
    });
    expect(requestLines(stack.logs, path)).toBe(logged);
    // 304 on a matching If-None-Match, also from the hot path
    const again = await httpGet(stack.port, path, { ...admin, 'if-none-match': String(first.headers.etag) });
    expect(again.status).toBe(304);
    expect(again.text).toBe('');
    expect(hits(await metrics(), route)).toBe(before + 2);
  });

  it('the deprecated route (the report of /api/admin/insights, cached) keeps its headers on a hit', async () => {
    const route = '/api/admin/dashboard/executive';
    await httpGet(stack.port, route, admin);
    const before = hits(await metrics(), route);
    const hit = await httpGet(stack.port, route, admin);
    expect(hits(await metrics(), route)).toBe(before + 1);
    expect(hit.text).toBe((await httpGet(stack.port, '/api/admin/insights', admin)).text);
    expect(hit.headers.deprecation).toBe('true');
    expect(hit.headers.link).toBe('</api/admin/insights>; rel="successor-version"');
  });

  it('authorization is never skipped: bad, missing or other tokens after hits', async () => {
    await httpGet(stack.port, '/api/admin/user/profile', admin);
    const bad = await httpGet(stack.port, '/api/admin/user/profile', {
      authorization: 'user:' + 'f'.repeat(64),
    });
    expect(bad.status).toBe(401);
    expect(bad.json()).toMatchObject({ name: 'UnauthorizedError' });
    expect(bad.headers).toMatchObject(SECURITY);
    expect((await httpGet(stack.port, '/api/admin/user/profile')).status).toBe(401);
    // another user's profile is theirs, not the admin's cached one
    const other = { authorization: await createToken(stack.env, '3') };
    const mine = (await httpGet(stack.port, '/api/admin/user/profile', admin)).text;
    await httpGet(stack.port, '/api/admin/user/profile', other);
    expect((await httpGet(stack.port, '/api/admin/user/profile', other)).text).not.toBe(mine);
  });

  it('a range of the insights takes the full path; an unknown project gets the same 404 on either path', async () => {
    const route = '/api/admin/insights';
    const before = hits(await metrics(), route);
    for (let i = 0; i < 2; i++)
      expect((await httpGet(stack.port, `${route}?from=2026-11-01`, admin)).status).toBe(200);
    expect((await httpGet(stack.port, `${route}?from=nope`, admin)).status).toBe(400);
    expect(hits(await metrics(), route)).toBe(before);
    // a caller not known yet takes the full path (the guard, the filter's envelope); a known one is answered
    // before it, with the same status, headers and envelope
    const overview = '/api/admin/projects/:projectId/overview';
    const newcomer = { authorization: await createToken(stack.env, 'admin') };
    const full = await httpGet(stack.port, '/api/admin/projects/nope/overview', newcomer);
    const loadedBefore = loaded(await metrics(), overview);
    const early = await httpGet(stack.port, '/api/admin/projects/nope/overview', newcomer);
    expect(loaded(await metrics(), overview)).toBe(loadedBefore + 1);
    for (const missing of [full, early]) {
      expect(missing.status).toBe(404);
      expect(missing.json()).toMatchObject({ name: 'NotFoundError', message: 'No project found' });
      expect(missing.headers).toMatchObject(SECURITY);
    }
    const { date: _d, ...fullHeaders } = full.headers;
    const { date: _d2, ...earlyHeaders } = early.headers;
    expect(earlyHeaders).toEqual(fullHeaders);
    expect(Object.keys(early.json() as object)).toEqual(Object.keys(full.json() as object));
  });

  it.each([
    ['gzip', 'gzip', gunzipSync],
    ['gzip, deflate, br', 'br', brotliDecompressSync],
    ['br;q=0, gzip', 'gzip', gunzipSync],
    ['*', 'br', brotliDecompressSync],
  ] as const)(
    'Accept-Encoding %s: a %s body that decompresses to exactly the identity body, same ETag, 304 alike',
    async (accept, encoding, decompress) => {
      const path = '/api/admin/events/checkout.new-flow';
      const identity = await getRaw(stack.port, path, admin);
      expect(identity.status).toBe(200);
      expect(identity.body.length).toBeGreaterThan(1024);
      expect(identity.headers['content-encoding']).toBeUndefined();
      expect(identity.headers.vary).toMatch(/Accept-Encoding/i);
      // twice: computed on the first request that accepts it, kept with the cache entry for the next
      for (let i = 0; i < 2; i++) {
        const compressed = await getRaw(stack.port, path, { ...admin, 'accept-encoding': accept });
        expect(compressed.status).toBe(200);
        expect(compressed.headers['content-encoding']).toBe(encoding);
        expect(compressed.headers.vary).toMatch(/Accept-Encoding/i);
        expect(compressed.headers.etag).toBe(identity.headers.etag);
        expect(compressed.body.length).toBeLessThan(identity.body.length / 3);
        expect(decompress(compressed.body).equals(identity.body)).toBe(true);
      }
      const notModified = await getRaw(stack.port, path, {
        ...admin,
        'accept-encoding': accept,
        'if-none-match': String(identity.headers.etag),
      });
      expect(notModified.status).toBe(304);
      expect(notModified.body.length).toBe(0);
      expect(notModified.headers.vary).toMatch(/Accept-Encoding/i);
    },
  );

  it('identity when nothing else is acceptable, and for small bodies', async () => {
    const path = '/api/admin/events/checkout.new-flow';
    const identity = await getRaw(stack.port, path, admin);
    for (const accept of ['identity', 'gzip;q=0', 'deflate', '']) {
      const r = await getRaw(stack.port, path, { ...admin, 'accept-encoding': accept });
      expect(r.headers['content-encoding']).toBeUndefined();
      expect(r.body.equals(identity.body)).toBe(true);
    }
    const profile = await getRaw(stack.port, '/api/admin/user/profile', {
      ...admin,
      'accept-encoding': 'gzip, br',
    });
    expect(profile.body.length).toBeLessThan(1024);
    expect(profile.headers['content-encoding']).toBeUndefined();
    expect(profile.headers.vary).toBeUndefined();
  });
});
