import { join } from 'node:path';
import fc from 'fast-check';
import { request } from 'node:http';
import { createToken } from '@flaglens/testing/support/cli';
import { produce } from '@flaglens/testing/support/test-kafka';
import { apiGet, expectConforming } from '@flaglens/testing/support/openapi';
import { startStack, type Stack } from '@flaglens/testing/support/stack';

const SAMPLE = join(__dirname, 'fixtures', 'reference-sample');

/** Any method, any path, any headers, sent raw. */
function send(
  port: number,
  method: string,
  path: string,
  headers: Record<string, string>,
): Promise<{ status: number; text: string; headers: Record<string, unknown> }> {
  return new Promise((resolve) => {
    const req = request({ host: '127.0.0.1', port, method, path, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          text: Buffer.concat(chunks).toString('utf8'),
          headers: res.headers,
        }),
      );
    });
    // a request Node itself refuses to send (invalid characters) counts as rejected at the edge
    req.on('error', (e) => resolve({ status: -1, text: String(e), headers: {} }));
    req.end();
  });
}

const safeDecode = (p: string) => {
  try {
    return decodeURIComponent(p);
  } catch {
    return p;
  }
};

const LEAKS =
  /(\n\s+at |node_modules|\.ts:\d|QueryFailedError|syntax error at|SELECT |INSERT |relation "|pg_|stack)/;

/**
 * Hostile and malformed requests against the running api: never a 5xx, never a stack trace or SQL in a
 * body, never data of a private project for a non-member, and "not allowed" answers exactly as "unknown".
 */
describe('HTTP fuzzing of the admin endpoints (running apps)', () => {
  let stack: Stack;
  let admin: Record<string, string>;
  let bob: Record<string, string>;
  /** the vault's owner (an Editor) */
  let alice: Record<string, string>;

  beforeAll(async () => {
    stack = await startStack('http_fuzz', { FLAGLENS_CLOCK: '2026-11-22T09:01:00Z' });
    expect(await stack.publish(join(SAMPLE, 'events.ndjson'))).toMatch(/sent 101/);
    // a private project owned by alice (2): bob (3, Viewer) is neither a member nor an admin
    const secret = {
      id: 5000,
      createdAt: '2026-11-22T08:55:00.000Z',
      type: 'project-created',
      createdBy: 'alice@example.com',
      createdByUserId: 2,
      environment: null,
      project: 'vault',
      featureName: null,
      data: { id: 'vault', name: 'Vault', description: 'top secret', mode: 'private' },
      preData: null,
      tags: [],
    };
    const flag = {
      ...secret,
      id: 5001,
      type: 'feature-created',
      project: 'vault',
      featureName: 'vault.secret-flag',
      data: { name: 'vault.secret-flag', project: 'vault', type: 'release' },
    };
    // a flag created in the vault and moved out: its move names the vault
    const moved = {
      ...flag,
      id: 5002,
      featureName: 'vault.moved',
      data: { name: 'vault.moved', type: 'release' },
    };
    const move = {
      ...secret,
      id: 5003,
      createdAt: '2026-11-22T08:56:00.000Z',
      type: 'feature-project-change',
      project: 'default',
      featureName: 'vault.moved',
      data: { oldProject: 'vault', newProject: 'default' },
    };
    // a private project deleted with its history: it stays private
    const attic = {
      ...secret,
      id: 5004,
      project: 'attic',
      data: { id: 'attic', name: 'Attic', mode: 'private' },
    };
    const atticFlag = {
      ...flag,
      id: 5005,
      project: 'attic',
      featureName: 'attic.old-flag',
      data: { name: 'attic.old-flag', project: 'attic', type: 'release' },
    };
    const atticGone = {
      ...attic,
      id: 5006,
      createdAt: '2026-11-22T08:57:00.000Z',
      type: 'project-deleted',
      data: null,
    };
    await produce(stack.kafka, stack.topic, [
      { key: 'vault', value: JSON.stringify(secret) },
      { key: 'vault.secret-flag', value: JSON.stringify(flag) },
      { key: 'vault.moved', value: JSON.stringify(moved) },
      { key: 'vault.moved', value: JSON.stringify(move) },
      { key: 'attic', value: JSON.stringify(attic) },
      { key: 'attic.old-flag', value: JSON.stringify(atticFlag) },
      { key: 'attic', value: JSON.stringify(atticGone) },
    ]);
    await stack.waitForEvents(108);
    admin = { authorization: await createToken(stack.env, 'admin') };
    bob = { authorization: await createToken(stack.env, '3') };
    alice = { authorization: await createToken(stack.env, '2') };
  });

  afterAll(async () => {
    await stack?.stop();
  });

  it('a private project is invisible to a non-member: the same status and body as an unknown project', async () => {
    const hidden = await apiGet(stack.port, '/api/admin/projects/vault/overview', bob);
    const unknown = await apiGet(stack.port, '/api/admin/projects/no-such-vault/overview', bob);
    expect(hidden.status).toBe(404);
    expect(unknown.status).toBe(404);
    const strip = (t: string) => ({ ...(JSON.parse(t) as Record<string, unknown>), id: 'x' });
    expect(strip(hidden.text)).toEqual(strip(unknown.text));
    expect(hidden.text).not.toMatch(/Vault|top secret/);
    // the owner and an admin see it
    expect((await apiGet(stack.port, '/api/admin/projects/vault/overview', admin)).status).toBe(200);
    // its flag's events: none for bob (as for an unknown flag), all for an admin
    const bobsList = JSON.parse((await apiGet(stack.port, '/api/admin/events/vault.secret-flag', bob)).text);
    expect(bobsList).toEqual({ version: 1, toggleName: 'vault.secret-flag', events: [], totalEvents: 0 });
    const adminsList = JSON.parse(
      (await apiGet(stack.port, '/api/admin/events/vault.secret-flag', admin)).text,
    );
    expect(adminsList.totalEvents).toBe(1);
    // and the instance-wide list leaves the project's events out for bob only
    expect((await apiGet(stack.port, '/api/admin/events', bob)).text).not.toMatch(/top secret|vault|attic/);
    expect((await apiGet(stack.port, '/api/admin/events', admin)).text).toMatch(/top secret/);
  });

  it('no event naming a private project reaches a non-member: a flag moved out of it, a deleted one', async () => {
    const list = async (flag: string, as: Record<string, string>) =>
      JSON.parse((await apiGet(stack.port, `/api/admin/events/${flag}`, as)).text) as {
        events: { id: number }[];
        totalEvents: number;
      };
    // the move names the vault in its data: hidden with the rest of the flag's time there
    expect((await list('vault.moved', bob)).totalEvents).toBe(0);
    expect((await list('vault.moved', alice)).events.map((e) => e.id)).toEqual([5003, 5002]);
    expect((await list('vault.moved', admin)).totalEvents).toBe(2);
    // a deleted private project's history stays private (its members went with it: alice is an Editor)
    expect((await list('attic.old-flag', bob)).totalEvents).toBe(0);
    expect((await list('attic.old-flag', alice)).totalEvents).toBe(0);
    expect((await list('attic.old-flag', admin)).totalEvents).toBe(1);
    // the instance list's total counts what the caller may see
    const total = async (as: Record<string, string>) =>
      (JSON.parse((await apiGet(stack.port, '/api/admin/events', as)).text) as { totalEvents: number })
        .totalEvents;
    expect(await total(admin)).toBe(108);
    expect(await total(alice)).toBe(108 - 3); // attic's three events
    expect(await total(bob)).toBe(108 - 3 - 4); // and the vault's, the move included
  });

  it('the reports (insights and the executive dashboard) hold no row nor figure of a private project for a non-member', async () => {
    for (const path of [
      '/api/admin/insights',
      '/api/admin/dashboard/executive',
      '/api/admin/insights?from=2026-11-01',
    ]) {
      const forBob = await apiGet(stack.port, path, bob);
      const forAdmin = await apiGet(stack.port, path, admin);
      const forAlice = await apiGet(stack.port, path, alice);
      expect([forBob.status, forAdmin.status, forAlice.status]).toEqual([200, 200, 200]);
      expect(forBob.text).not.toMatch(/vault|attic/);
      expect(forAlice.text).not.toMatch(/attic/);
      expect(forAdmin.text).toMatch(/"project":"vault"/);
      expect(forAlice.text).toMatch(/"project":"vault"/);
      type Report = { flagTrends: { total: number }[]; projectFlagTrends: { project: string }[] };
      const bobs = forBob.json() as Report;
      const admins = forAdmin.json() as Report;
      // the instance sums leave out the vault's live flag (vault.secret-flag)
      expect(admins.flagTrends.at(-1)!.total - bobs.flagTrends.at(-1)!.total).toBe(1);
      expect(new Set(bobs.projectFlagTrends.map((r) => r.project))).toEqual(new Set(['default']));
    }
  });

  it('a private project costs a non-member the time an unknown project costs', async () => {
    const time = async (path: string) => {
      const t0 = process.hrtime.bigint();
      const res = await apiGet(stack.port, path, bob);
      expect(res.status).toBe(404);
      return Number(process.hrtime.bigint() - t0) / 1e6;
    };
    const privateMs: number[] = [];
    const unknownMs: number[] = [];
    for (let i = 0; i < 200; i++) {
      // interleaved, so both see the same machine
      privateMs.push(await time('/api/admin/projects/vault/overview'));
      unknownMs.push(await time(`/api/admin/projects/no-such-vault-${i % 4}/overview`));
    }
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
    const [p, u] = [median(privateMs.slice(20)), median(unknownMs.slice(20))];
    expect(Math.abs(p - u)).toBeLessThan(Math.max(0.25, 0.2 * Math.max(p, u)));
  });

  const segment = fc.oneof(
    fc.string({ maxLength: 40 }),
    fc.constantFrom(
      '..',
      '.',
      '%',
      '%E0%A4%A',
      '%2F',
      '%00',
      '%ZZ',
      "' OR 1=1 --",
      '"; DROP TABLE event_log; --',
      '$1',
      '\\',
      '%27%3B%20SELECT%20pg_sleep(5)%3B--',
      'vault',
      'default',
      'a'.repeat(3000),
    ),
  );
  const pathOf = (template: string, s: string, rawPercent: boolean) =>
    template.replace('{x}', encodeURIComponent(s).replace(/%25/g, rawPercent ? '%' : '%25'));
  const templates = [
    '/api/admin/events/{x}',
    '/api/admin/events?x={x}',
    '/api/admin/projects/{x}/overview',
    '/api/admin/user/profile?x={x}',
    '/api/admin/insights?from={x}',
    '/api/admin/insights?to=2026-11-22&from={x}',
    '/api/admin/dashboard/executive?x={x}',
    '/api/admin/insights/lifecycle?projects={x}',
    '/api/admin/{x}',
    '/api/admin/events/{x}/{x}',
    '/{x}',
  ];
  const authHeader = fc.oneof(
    fc.constant(undefined),
    fc.string({ maxLength: 80 }).map((s) => s.replace(/[^\x20-\x7e]/g, '')),
    fc.constantFrom(
      'user:',
      'Bearer ',
      'Bearer user:',
      'user:' + 'f'.repeat(64),
      'bearer   user:xyz',
      '*:*.abc',
      "user:' OR '1'='1",
    ),
  );

  it('random paths, methods, tokens and headers: no 5xx, no stack trace or SQL, no private data for a non-member', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...templates),
        segment,
        fc.boolean(),
        fc.constantFrom('GET', 'GET', 'GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'OPTIONS', 'PATCH'),
        fc.oneof(authHeader, fc.constant('bob'), fc.constant('admin'), fc.constant('alice')),
        fc.dictionary(
          fc.constantFrom('x-forwarded-for', 'cookie', 'accept', 'content-type', 'if-none-match'),
          fc.string({ maxLength: 60 }).map((s) => s.replace(/[^\x20-\x7e]/g, '')),
          { maxKeys: 3 },
        ),
        async (template, seg, rawPercent, method, auth, extra) => {
          const headers: Record<string, string> = { ...extra };
          if (auth === 'bob') Object.assign(headers, bob);
          else if (auth === 'admin') Object.assign(headers, admin);
          else if (auth === 'alice') Object.assign(headers, alice);
          else if (auth !== undefined) headers.authorization = auth;
          const path = pathOf(template, seg, rawPercent);
          const res = await send(stack.port, method, path, headers);
          expect(res.status).toBeLessThan(500);
          // a read of a documented operation is answered as the served OpenAPI document says
          if (method === 'GET') await expectConforming(stack.port, method, path, res);
          // answers echo the requested name or path (as the reference does); look for leaks in the rest
          const echoes = [
            path,
            safeDecode(path),
            seg,
            JSON.stringify(seg).slice(1, -1),
            JSON.stringify(safeDecode(path)).slice(1, -1),
          ];
          const scrubbed = echoes.reduce((t, x) => (x ? t.split(x).join('') : t), res.text);
          expect(scrubbed).not.toMatch(LEAKS);
          if (auth === 'bob')
            expect(res.text).not.toMatch(/top secret|"name":"Vault"|"project":"vault"|attic/);
          if (auth === 'alice') expect(res.text).not.toMatch(/attic/);
          for (const t of [bob.authorization, admin.authorization, alice.authorization])
            expect(res.text).not.toContain(t);
        },
      ),
      { numRuns: 400, seed: 20261122 },
    );
  });

  it('injection payloads through every parameter are data, not SQL: answered as unknown names', async () => {
    for (const payload of [
      "x' OR '1'='1",
      "x'; DELETE FROM event_log; --",
      'x") UNION SELECT body FROM event_log --',
      '$1::text',
      "%' AND pg_sleep(3) IS NULL --",
    ]) {
      const started = Date.now();
      const events = await apiGet(stack.port, `/api/admin/events/${encodeURIComponent(payload)}`, admin);
      expect(events.status).toBe(200);
      expect(JSON.parse(events.text)).toEqual({
        version: 1,
        toggleName: payload,
        events: [],
        totalEvents: 0,
      });
      const overview = await apiGet(
        stack.port,
        `/api/admin/projects/${encodeURIComponent(payload)}/overview`,
        admin,
      );
      expect(overview.status).toBe(404);
      expect(Date.now() - started).toBeLessThan(2500);
    }
    // and the data is intact
    expect(Number((await stack.db.query<{ n: string }>('SELECT count(*) AS n FROM event_log'))[0].n)).toBe(
      108,
    );
  });

  it('HTTP edges as the reference (Express) treats them: ETags, bodies on GET, letter case, bad escapes', async () => {
    const path = '/api/admin/events/checkout.new-flow';
    const first = await send(stack.port, 'GET', path, admin);
    expect(first.status).toBe(200);
    await expectConforming(stack.port, 'GET', path, first);
    const etag = String(first.headers.etag);
    expect(etag).toMatch(/^W\/"/);
    // a matching If-None-Match: 304 without a body; unless the client asks no-cache
    const again = await send(stack.port, 'GET', path, { ...admin, 'if-none-match': etag });
    expect(again.status).toBe(304);
    expect(again.text).toBe('');
    await expectConforming(stack.port, 'GET', path, again);
    expect((await send(stack.port, 'GET', path, { ...admin, 'if-none-match': 'W/"other"' })).status).toBe(
      200,
    );
    const noCache = { ...admin, 'if-none-match': etag, 'cache-control': 'no-cache' };
    expect((await send(stack.port, 'GET', path, noCache)).status).toBe(200);
    // a request body is ignored, whatever its type (every route is a read)
    const body = '{not json <xml/>';
    for (const type of ['text/xml', 'application/json', 'application/octet-stream']) {
      const withBody = await new Promise<{ status: number; text: string }>((resolve, reject) => {
        const req = request(
          {
            host: '127.0.0.1',
            port: stack.port,
            method: 'GET',
            path,
            headers: { ...admin, 'content-type': type, 'content-length': String(body.length) },
          },
          (res) => {
            const chunks: Buffer[] = [];
            res.on('data', (c: Buffer) => chunks.push(c));
            res.on('end', () =>
              resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString() }),
            );
          },
        );
        req.on('error', reject);
        req.end(body);
      });
      expect(withBody).toEqual({ status: 200, text: first.text });
    }
    // routing ignores letter case and a trailing slash; authentication does not
    const shouted = await send(stack.port, 'GET', '/API/Admin/events/checkout.new-flow/', admin);
    expect(shouted.status).toBe(200);
    expect(shouted.text).toBe(first.text);
    expect((await send(stack.port, 'GET', '/API/ADMIN/user/profile', {})).status).toBe(401);
    // a malformed percent-escape: 400 BadDataError in the envelope
    const bad = await send(stack.port, 'GET', '/api/admin/events/%E0%A4%A', admin);
    expect(bad.status).toBe(400);
    expect(JSON.parse(bad.text)).toMatchObject({
      name: 'BadDataError',
      details: [{ message: expect.any(String) }],
    });
    // a long flag name is a name like any other (no router limit at 100 characters)
    const longName = 'f'.repeat(1000);
    const long = await send(stack.port, 'GET', `/api/admin/events/${longName}`, admin);
    expect(long.status).toBe(200);
    expect(JSON.parse(long.text)).toMatchObject({ toggleName: longName, totalEvents: 0 });
  });

  it('sets secure headers and answers very long URLs with a 4xx', async () => {
    const res = await apiGet(stack.port, '/api/admin/events/checkout.new-flow', admin);
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['x-powered-by']).toBeUndefined();
    const long = await send(stack.port, 'GET', '/api/admin/events/' + 'a'.repeat(20000), admin);
    expect(long.status).toBeGreaterThanOrEqual(400);
    expect(long.status).toBeLessThan(500);
  });
});
