import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { load, loadTool, parseWrk, wrkMs, wrkPathsScript, type LoadTool } from './load';

describe("wrk's output", () => {
  it('reads requests/s, p50, p99, failures and the count of requests', () => {
    const out = `Running 2s test @ http://127.0.0.1:1/x
  2 threads and 50 connections
  Thread Stats   Avg      Stdev     Max   +/- Stdev
    Latency     1.10ms  300.00us   9.00ms   90.00%
  Latency Distribution
     50%  850.00us
     75%    1.20ms
     90%    1.50ms
     99%    2.50ms
  20000 requests in 2.00s, 5.00MB read
  Socket errors: connect 0, read 1, write 0, timeout 2
  Non-2xx or 3xx responses: 4
Requests/sec:  10000.50
Transfer/sec:      2.50MB
`;
    expect(parseWrk(out)).toEqual({ reqPerSec: 10001, p50Ms: 0.85, p99Ms: 2.5, non2xx: 7, requests: 20000 });
    expect(wrkMs('2.00s')).toBe(2000);
  });
});

describe('a wrk script of random paths', () => {
  it('lists every path as a Lua string, escaped', () => {
    const script = wrkPathsScript(['/a', '/b"c', '/d\\e']);
    expect(script).toContain('  "/a",\n  "/b\\"c",\n  "/d\\\\e",\n}');
    expect(script).toContain('wrk.format("GET", paths[math.random(n)])');
  });

  it('waits a think time before each request when given one, and only then', () => {
    expect(wrkPathsScript(['/a'])).not.toContain('delay');
    expect(wrkPathsScript(['/a'], 25)).toContain(
      'function delay()\n  return -math.log(1 - math.random()) * 25\nend',
    );
    expect(() => wrkPathsScript(['/a'], 0)).toThrow('a think time must be > 0 ms');
  });

  it('refuses no paths, and paths it cannot write as plain Lua strings', () => {
    expect(() => wrkPathsScript([])).toThrow('no paths');
    expect(() => wrkPathsScript(['/é'])).toThrow('not a printable ASCII path');
    expect(() => wrkPathsScript(['/a\nb'])).toThrow('not a printable ASCII path');
  });
});

describe('a load of random paths', () => {
  let server: Server;
  let origin: string;
  const seen = new Map<string, number>();
  const auth: string[] = [];

  beforeAll(async () => {
    server = createServer((req, res) => {
      seen.set(req.url ?? '', (seen.get(req.url ?? '') ?? 0) + 1);
      auth.push(req.headers.authorization ?? '');
      res.end('ok');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));
  beforeEach(() => {
    seen.clear();
    auth.length = 0;
  });

  const tools: LoadTool[] = loadTool() === 'wrk' ? ['wrk', 'autocannon'] : ['autocannon'];
  // each case has paths of its own: a load's last requests may still arrive after it has resolved
  const under = (prefix: string) => [...seen.keys()].filter((p) => p.startsWith(prefix)).sort();

  it.each(tools)('%s requests every path of the list, with the headers, and only those', async (tool) => {
    const paths = Array.from({ length: 20 }, (_, i) => `/${tool}/p/${i}`);
    const r = await load(tool, origin, { authorization: 'Bearer x' }, 4, 1, paths);
    expect(r.tool).toBe(tool);
    expect(r.non2xx).toBe(0);
    expect(r.requests).toBeGreaterThan(100);
    expect(under(`/${tool}/`)).toEqual([...paths].sort());
    expect(under('/')).toEqual(under(`/${tool}/`));
    expect(new Set(auth)).toEqual(new Set(['Bearer x']));
  });

  (tools.includes('wrk') ? it : it.skip)(
    'wrk paced at a rate offers about that rate, over every path',
    async () => {
      // 4 connections at 200 requests/s in all for 2 s: about 400 requests (a Poisson stream: ±20), where
      // the closed loop above sends thousands
      const paths = Array.from({ length: 5 }, (_, i) => `/wrk/paced/${i}`);
      const r = await load('wrk', origin, {}, 4, 2, paths, 200);
      expect(r.non2xx).toBe(0);
      expect(r.requests).toBeGreaterThan(280);
      expect(r.requests).toBeLessThan(520);
      expect(under('/wrk/paced/')).toEqual([...paths].sort());
      await expect(load('wrk', origin, {}, 4, 1, undefined, 200)).rejects.toThrow('a paced load needs paths');
    },
  );

  it('autocannon refuses a paced load: its rate is sent in bursts, a second at a time', async () => {
    // with overallRate 200 over 4 connections for 2 s, autocannon sent up to 603 requests: each connection's
    // budget as each second started, and one more at the end
    await expect(load('autocannon', origin, {}, 4, 2, ['/a'], 200)).rejects.toThrow('a paced load needs wrk');
    expect(under('/a')).toEqual([]);
  });

  it.each(tools)('%s without paths loads the url as before', async (tool) => {
    const r = await load(tool, `${origin}/${tool}-one`, {}, 2, 1);
    // `/${tool}-`, not `/${tool}`: the first case's `/${tool}/p/…` may still be arriving on a busy machine
    expect(under(`/${tool}-`)).toEqual([`/${tool}-one`]);
    expect(r.requests).toBeGreaterThan(0);
  });
});
