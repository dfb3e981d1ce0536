import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from 'pg';

const ROOT = join(__dirname, '..');
export const PEER_VERSION = '6.10.1';
const PEER_SRC = join(ROOT, 'conformance', 'unleash-peer');
export const PEER_DIR = join(ROOT, '.cache', `unleash-${PEER_VERSION}`);
const DEFAULT_PG_BASE = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/flaglens';

/**
 * Installs `unleash-server@6.10.1` into `.cache/unleash-6.10.1` with `npm ci` from the committed lockfile
 * (conformance/unleash-peer/), unless the same lockfile is installed already. Install scripts are not run
 * (Unleash needs none; one of its dependencies would phone home).
 */
export function installPeer(log: (m: string) => void): void {
  const lock = readFileSync(join(PEER_SRC, 'package-lock.json'));
  const stamp = createHash('sha256').update(lock).digest('hex');
  const stampFile = join(PEER_DIR, '.installed');
  if (existsSync(stampFile) && readFileSync(stampFile, 'utf8') === stamp) return;
  log(`installing unleash-server@${PEER_VERSION} into ${PEER_DIR} (npm ci)`);
  mkdirSync(PEER_DIR, { recursive: true });
  copyFileSync(join(PEER_SRC, 'package.json'), join(PEER_DIR, 'package.json'));
  copyFileSync(join(PEER_SRC, 'package-lock.json'), join(PEER_DIR, 'package-lock.json'));
  execFileSync('npm', ['ci', '--ignore-scripts', '--no-audit', '--no-fund', '--loglevel=error'], {
    cwd: PEER_DIR,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  writeFileSync(stampFile, stamp);
}

export interface Peer {
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

/** Starts the real Unleash on loopback against a fresh database (dropped by `stop`). */
export async function startPeer(port: number, PG_BASE = DEFAULT_PG_BASE): Promise<Peer> {
  const db = `flaglens_conf_unleash_${randomBytes(3).toString('hex')}`;
  const admin = new Client({ connectionString: withDb(PG_BASE, 'postgres') });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${db}`);
  await admin.end();
  const adminToken = `*:*.${randomBytes(16).toString('hex')}`;
  const adminPassword = `Conf-${randomBytes(6).toString('hex')}!1`;
  const pg = new URL(PG_BASE);
  pg.pathname = '';
  // Unleash 6.10.1 runs on Node < 21 only: on Node 20 (scripts/node-runtime.sh), whichever Node runs us
  const node20 = execFileSync('bash', [join(ROOT, 'scripts', 'node-runtime.sh'), 'bin', '20'], {
    encoding: 'utf8',
  });
  const child: ChildProcess = spawn(join(node20.trim(), 'node'), [join(PEER_SRC, 'start.js')], {
    cwd: PEER_DIR,
    env: {
      ...process.env,
      UNLEASH_PEER_DIR: PEER_DIR,
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
    const timer = setTimeout(() => reject(new Error('Unleash did not start within 120 s')), 120_000);
    child.stdout!.on('data', (d: Buffer) => {
      output.push(d.toString());
      if (d.toString().includes('READY')) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.stderr!.on('data', (d: Buffer) => output.push(d.toString()));
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`Unleash exited (${code}): ${output.join('').slice(-2000)}`));
    });
  });
  await ready;
  return {
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
      const a = new Client({ connectionString: withDb(PG_BASE, 'postgres') });
      await a.connect();
      await a.query(`DROP DATABASE IF EXISTS ${db} WITH (FORCE)`);
      await a.end();
    },
  };
}
