import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from 'pg';

const ROOT = join(__dirname, '..');
/** The Unleash releases the conformance run checks flaglens against, oldest first. */
export const PEER_VERSIONS = ['6.10.1', '7.6.5', '8.2.0'] as const;
export type PeerVersion = (typeof PEER_VERSIONS)[number];
/** The release CI's oracle has been since the start (bench, nginx test and the Debezium run use it). */
export const PEER_VERSION: PeerVersion = '6.10.1';
/** The Node major each release runs on: 6.10.1 refuses Node ≥ 21; 7.6 and 8.x need Node ≥ 22. */
const PEER_NODE: Record<PeerVersion, string> = { '6.10.1': '20', '7.6.5': '24', '8.2.0': '24' };
const PEER_SRC = join(ROOT, 'conformance', 'unleash-peer');
export const peerDir = (version: PeerVersion = PEER_VERSION) => join(ROOT, '.cache', `unleash-${version}`);
export const PEER_DIR = peerDir(PEER_VERSION);
const DEFAULT_PG_BASE = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/flaglens';

export function isPeerVersion(v: string): v is PeerVersion {
  return (PEER_VERSIONS as readonly string[]).includes(v);
}

/**
 * Installs `unleash-server@<version>` into `.cache/unleash-<version>` with `npm ci` from its committed lockfile
 * (conformance/unleash-peer/<version>/), unless the same lockfile is installed already. Install scripts are not
 * run (Unleash needs none; one of its dependencies would phone home).
 */
export function installPeer(log: (m: string) => void, version: PeerVersion = PEER_VERSION): void {
  const src = join(PEER_SRC, version);
  const dir = peerDir(version);
  const lock = readFileSync(join(src, 'package-lock.json'));
  const stamp = createHash('sha256').update(lock).digest('hex');
  const stampFile = join(dir, '.installed');
  if (existsSync(stampFile) && readFileSync(stampFile, 'utf8') === stamp) return;
  log(`installing unleash-server@${version} into ${dir} (npm ci)`);
  mkdirSync(dir, { recursive: true });
  // under a lock, checked again inside it: runs started side by side (the nginx e2e test, the conformance run,
  // the bench's peer stage) may install the same release at once, and a second `npm ci` would empty
  // node_modules under an Unleash already running from it
  const install = [
    'set -e',
    'if [ -f .installed ] && [ "$(cat .installed)" = "$1" ]; then exit 0; fi',
    'cp "$2/package.json" "$2/package-lock.json" .',
    'npm ci --ignore-scripts --no-audit --no-fund --loglevel=error',
    'printf %s "$1" > .installed',
  ].join('\n');
  execFileSync('flock', ['-w', '900', `${dir}.lock`, 'bash', '-c', install, 'install-peer', stamp, src], {
    cwd: dir,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
}

const nodeBins = new Map<string, string>();
/** The `node` a release runs on (scripts/node-runtime.sh brings the pinned binary into .cache if missing). */
export function peerNode(version: PeerVersion): string {
  const major = PEER_NODE[version];
  let bin = nodeBins.get(major);
  if (!bin) {
    bin = execFileSync('bash', [join(ROOT, 'scripts', 'node-runtime.sh'), 'bin', major], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'inherit'],
    }).trim();
    nodeBins.set(major, bin);
  }
  return join(bin, 'node');
}

export interface PeerOptions {
  /** The release to start (installed with installPeer); 6.10.1 unless told. */
  version?: PeerVersion;
  /** An existing database to start on (its migrations run); a fresh one unless told. */
  database?: string;
  /** Leave the database in place on `stop` (to start another release on it). */
  keepDatabase?: boolean;
  /** The secrets of an earlier start on the same database (a restart keeps its admin and token). */
  adminToken?: string;
  adminPassword?: string;
}

export interface Peer {
  version: PeerVersion;
  port: number;
  url: string;
  db: string;
  dbUrl: string;
  adminToken: string;
  adminPassword: string;
  stop(): Promise<void>;
  output: string[];
}

function withDb(url: string, db: string): string {
  const u = new URL(url);
  u.pathname = `/${db}`;
  return u.toString();
}

/**
 * Starts the real Unleash on loopback, on the Node its release needs, against a fresh database (dropped by
 * `stop`) or the one given.
 */
export async function startPeer(port: number, PG_BASE = DEFAULT_PG_BASE, o: PeerOptions = {}): Promise<Peer> {
  const version = o.version ?? PEER_VERSION;
  const dir = peerDir(version);
  const db = o.database ?? `flaglens_conf_unleash_${randomBytes(3).toString('hex')}`;
  if (!o.database) {
    const admin = new Client({ connectionString: withDb(PG_BASE, 'postgres') });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${db}`);
    await admin.end();
  }
  const adminToken = o.adminToken ?? `*:*.${randomBytes(16).toString('hex')}`;
  const adminPassword = o.adminPassword ?? `Conf-${randomBytes(6).toString('hex')}!1`;
  const pg = new URL(PG_BASE);
  pg.pathname = '';
  const child: ChildProcess = spawn(peerNode(version), [join(PEER_SRC, 'start.js')], {
    cwd: dir,
    env: {
      ...process.env,
      UNLEASH_PEER_DIR: dir,
      UNLEASH_PEER_DB: db,
      UNLEASH_PEER_PG: pg.toString().replace(/\/$/, ''),
      UNLEASH_PEER_PORT: String(port),
      UNLEASH_PEER_ADMIN_PASSWORD: adminPassword,
      INIT_ADMIN_API_TOKENS: adminToken,
      NODE_ENV: 'production',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output: string[] = [];
  const ready = new Promise<void>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`Unleash ${version} did not start within 240 s`)),
      240_000,
    );
    child.stdout!.on('data', (d: Buffer) => {
      output.push(d.toString());
      if (d.toString().includes('READY')) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.stderr!.on('data', (d: Buffer) => output.push(d.toString()));
    child.once('exit', (code, signal) => {
      output.push(`\n[Unleash ${version} exited: code ${code}, signal ${signal}]\n`);
      clearTimeout(timer);
      reject(new Error(`Unleash ${version} exited (${code}): ${output.join('').slice(-2000)}`));
    });
  });
  await ready;
  return {
    version,
    port,
    url: `http://127.0.0.1:${port}`,
    db,
    dbUrl: withDb(PG_BASE, db),
    adminToken,
    adminPassword,
    output,
    stop: async () => {
      if (child.exitCode === null) {
        const exited = new Promise((r) => child.once('exit', r));
        child.kill('SIGTERM');
        const t = setTimeout(() => child.kill('SIGKILL'), 10_000);
        await exited;
        clearTimeout(t);
      }
      if (o.keepDatabase) return;
      const a = new Client({ connectionString: withDb(PG_BASE, 'postgres') });
      await a.connect();
      await a.query(`DROP DATABASE IF EXISTS ${db} WITH (FORCE)`);
      await a.end();
    },
  };
}
