import { randomInt } from 'node:crypto';
import { mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface HttpResult {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  json: () => unknown;
}

/** A GET with the path sent exactly as given (no URL normalisation, unlike fetch). */
export function httpGet(
  port: number,
  path: string,
  headers: Record<string, string> = {},
): Promise<HttpResult> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, method: 'GET', headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json: () => JSON.parse(text) });
      });
    });
    req.on('error', reject);
    req.end();
  });
}

/**
 * Where the ports handed out are claimed: one file per port (its name) holding the claiming process's pid,
 * shared by every process of the machine that starts servers for the tests (both lanes of `npm test`, the
 * chaos run, the benches).
 */
export const PORT_CLAIMS = join(tmpdir(), 'flaglens-port-claims');
/** The ports handed out: below Linux's ephemeral range (32768 up), which outgoing connections take from. */
export const PORT_RANGE = { from: 20_000, to: 32_000 } as const;
/** A claim older than this is stale whoever made it (its process may be alive, its servers long gone). */
const CLAIM_TTL_MS = 3 * 60 * 60 * 1000;

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
};

/** Claims `port` for this process: true when no live claim of another holds it (a stale one is taken over). */
function claim(dir: string, port: number): boolean {
  const file = join(dir, String(port));
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      writeFileSync(file, String(process.pid), { flag: 'wx' });
      return true;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    }
    let pid = NaN;
    let age = 0;
    try {
      pid = Number(readFileSync(file, 'utf8'));
      age = Date.now() - statSync(file).mtimeMs;
    } catch {
      continue; // released meanwhile: try again
    }
    if (Number.isInteger(pid) && pid > 0 && alive(pid) && age < CLAIM_TTL_MS) return false;
    rmSync(file, { force: true }); // its process is gone: the port is free to claim
  }
  return false;
}

/** Whether a server can listen on `port` on every address (the api listens on `::`, others on 127.0.0.1). */
function bindable(port: number, host = '::'): Promise<boolean> {
  return new Promise((resolve) => {
    const srv = createServer();
    srv.once('error', (e: NodeJS.ErrnoException) =>
      // a machine without IPv6: every address is 127.0.0.1's
      resolve(e.code !== 'EADDRINUSE' && host === '::' ? bindable(port, '127.0.0.1') : false),
    );
    srv.listen({ port, host, ipv6Only: false }, () => srv.close(() => resolve(true)));
  });
}

/**
 * A port no server listens on, for a server a test starts. The port is free when handed out, but the server
 * binds it later (an app takes seconds to start): meanwhile another process's `freePort` must not hand it out
 * too, or two servers race for it and a test talks to the wrong one (an api's port answered by a projector of
 * the other lane). Hence a claim per port in PORT_CLAIMS, made atomically (`wx`), held while the claiming
 * process lives (at most CLAIM_TTL_MS), and ports taken from a range outgoing connections never use (the
 * kernel's `listen(0)` picks from theirs).
 * Written here, not taken from a package: the ones found (get-port, portfinder) keep their reservations within
 * one process.
 */
export async function freePort(dir: string = PORT_CLAIMS): Promise<number> {
  mkdirSync(dir, { recursive: true });
  const span = PORT_RANGE.to - PORT_RANGE.from;
  // every port of the range in turn from a random one (the claims, not the start, keep two processes apart)
  const start = randomInt(span);
  for (let i = 0; i < span; i++) {
    const port = PORT_RANGE.from + ((start + i) % span);
    if (!claim(dir, port)) continue;
    if (await bindable(port)) return port;
    // someone else's server (not one of ours) is on it: leave the claim, so no one of ours tries it again
  }
  throw new Error(`no free port in ${PORT_RANGE.from}-${PORT_RANGE.to} (claims: ${dir})`);
}
