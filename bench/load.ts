/*
 * HTTP load for the bench's reads: wrk where it is installed (Debian's `wrk`, -t2, a separate process: it loads
 * large bodies that autocannon, in the bench's own event loop, cannot on 2 cores), else autocannon. Every figure
 * says which tool produced it. FLAGLENS_BENCH_LOADER=autocannon forces the fallback.
 */
import { execFile, execSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';

export type LoadTool = 'wrk' | 'autocannon';

export interface LoadResult {
  tool: LoadTool;
  reqPerSec: number;
  p50Ms: number;
  p99Ms: number;
  /** responses that were not 2xx (nor 3xx for wrk), and socket errors */
  non2xx: number;
  /** requests completed */
  requests?: number;
}

export function loadTool(): LoadTool {
  if (process.env.FLAGLENS_BENCH_LOADER === 'autocannon') return 'autocannon';
  try {
    execSync('command -v wrk', { stdio: 'ignore', shell: '/bin/sh' });
    return 'wrk';
  } catch {
    return 'autocannon';
  }
}

/** wrk's durations: `850.00us`, `1.23ms`, `2.00s`, `1.5m`. */
export function wrkMs(v: string): number {
  const m = /^([\d.]+)(us|ms|s|m)$/.exec(v.trim());
  if (!m) return NaN;
  const n = Number(m[1]);
  return m[2] === 'us' ? n / 1000 : m[2] === 'ms' ? n : m[2] === 's' ? n * 1000 : n * 60_000;
}

/** The figures of wrk's `--latency` output. */
export function parseWrk(out: string): Omit<LoadResult, 'tool'> {
  const rps = /Requests\/sec:\s+([\d.]+)/.exec(out);
  const p = (q: string) => new RegExp(`^\\s*${q}%\\s+(\\S+)`, 'm').exec(out)?.[1];
  const non2xx = Number(/Non-2xx or 3xx responses:\s+(\d+)/.exec(out)?.[1] ?? 0);
  const requests = /(\d+) requests in /.exec(out);
  const sock = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(out);
  const errors = sock ? sock.slice(1).reduce((n, x) => n + Number(x), 0) : 0;
  return {
    reqPerSec: Math.round(Number(rps?.[1] ?? NaN)),
    p50Ms: Number(wrkMs(p('50') ?? '').toFixed(2)),
    p99Ms: Number(wrkMs(p('99') ?? '').toFixed(2)),
    non2xx: non2xx + errors,
    requests: Number(requests?.[1] ?? NaN),
  };
}

/** A Lua string literal of a path (printable ASCII only, as the bench's paths are). */
function luaString(path: string): string {
  if (!/^[\x20-\x7e]*$/.test(path)) throw new Error(`not a printable ASCII path: ${JSON.stringify(path)}`);
  return `"${path.replace(/[\\"]/g, (c) => `\\${c}`)}"`;
}

/**
 * A wrk script whose every request is a GET of one of `paths`, picked at random (each thread seeded
 * differently); the headers given with -H stay on every request. With `thinkMs`, each connection waits before
 * each request for a time drawn from an exponential distribution of that mean (a client's think time: the
 * connections' requests then arrive as a Poisson stream, not in lockstep).
 */
export function wrkPathsScript(paths: readonly string[], thinkMs?: number): string {
  if (paths.length === 0) throw new Error('no paths');
  if (thinkMs !== undefined && !(thinkMs > 0)) throw new Error(`a think time must be > 0 ms, not ${thinkMs}`);
  return [
    'local paths = {',
    ...paths.map((p) => `  ${luaString(p)},`),
    '}',
    'local n = #paths',
    'local threads = 0',
    'function setup(thread)',
    '  threads = threads + 1',
    '  thread:set("seed", threads)',
    'end',
    'function init(args)',
    '  math.randomseed(os.time() * 1000 + (seed or 0))',
    'end',
    'function request()',
    '  return wrk.format("GET", paths[math.random(n)])',
    'end',
    ...(thinkMs === undefined
      ? []
      : ['function delay()', `  return -math.log(1 - math.random()) * ${thinkMs}`, 'end']),
    '',
  ].join('\n');
}

/**
 * Loads `url` with `connections` for `seconds`. With `paths`, `url` is the server's origin and every request
 * GETs one of `paths` picked at random (wrk: a generated Lua script; autocannon: a request whose
 * `setupRequest` picks the path). Without `rate`, each connection sends its next request as soon as the last
 * is answered (a closed loop: the server's capacity). With `rate` (requests/s offered by all connections, and
 * `paths`), clients that pause between requests: wrk's connections wait a random think time of mean
 * `connections / rate` seconds before each request (wrk only: autocannon's rate is bursts).
 */
export async function load(
  tool: LoadTool,
  url: string,
  headers: Record<string, string>,
  connections: number,
  seconds: number,
  paths?: readonly string[],
  rate?: number,
): Promise<LoadResult> {
  if (paths && paths.length === 0) throw new Error('no paths');
  if (rate !== undefined && (!paths || !(rate > 0)))
    throw new Error('a paced load needs paths and a rate > 0');
  // autocannon's rate is a budget per connection and second, sent in a burst as each second starts (and a
  // budget more at the end): not a paced load
  if (rate !== undefined && tool !== 'wrk')
    throw new Error('a paced load needs wrk: autocannon sends each second of its rate in a burst');
  if (tool === 'wrk') {
    const args = ['-t', String(Math.min(2, connections)), '-c', String(connections), '-d', `${seconds}s`];
    args.push('--latency', '--timeout', '5s');
    for (const [k, v] of Object.entries(headers)) args.push('-H', `${k}: ${v}`);
    const dir = paths ? mkdtempSync(join(tmpdir(), 'flaglens-wrk-')) : undefined;
    try {
      if (dir) {
        writeFileSync(
          join(dir, 'paths.lua'),
          wrkPathsScript(paths!, rate === undefined ? undefined : (connections * 1000) / rate),
        );
        args.push('-s', join(dir, 'paths.lua'));
      }
      args.push(url);
      const out = await new Promise<string>((resolve, reject) =>
        execFile('wrk', args, { maxBuffer: 1 << 20 }, (e, stdout) => (e ? reject(e) : resolve(stdout))),
      );
      return { tool, ...parseWrk(out) };
    } finally {
      if (dir) rmSync(dir, { recursive: true, force: true });
    }
  }
  const pick = paths ? () => paths[Math.floor(Math.random() * paths.length)] : undefined;
  const r = await autocannon({
    url,
    headers,
    connections,
    duration: seconds,
    ...(pick ? { requests: [{ method: 'GET', setupRequest: (req) => ({ ...req, path: pick() }) }] } : {}),
  });
  return {
    tool,
    reqPerSec: Math.round(r.requests.average),
    p50Ms: r.latency.p50,
    p99Ms: r.latency.p99,
    non2xx: r.non2xx + r.errors,
    requests: r.requests.total,
  };
}
