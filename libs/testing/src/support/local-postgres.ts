import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { freePort } from '@flaglens/testing/support/http';

/**
 * A Postgres cluster of one's own (the chaos run restarts it): `initdb` into `dir` on a free loopback port,
 * run with `pg_ctl`, trust authentication for the `postgres` role, deleted by `stop`. The machine's own
 * server is never touched. As root (Postgres refuses to run as root) the cluster belongs to the `postgres`
 * system user and its commands run as that user (`runuser`).
 */
export interface LocalPostgres {
  /** postgres://postgres@127.0.0.1:<port>/postgres */
  url: string;
  port: number;
  dir: string;
  restart(mode: 'fast' | 'immediate'): void;
  /** Stops the server and deletes the cluster. */
  stop(): void;
}

/** Where initdb and pg_ctl are: PG_BINDIR, else `pg_config --bindir`, else the newest /usr/lib/postgresql/<v>/bin. */
function binDir(): string {
  const candidates: string[] = [];
  if (process.env.PG_BINDIR) candidates.push(process.env.PG_BINDIR);
  try {
    candidates.push(execFileSync('pg_config', ['--bindir'], { encoding: 'utf8' }).trim());
  } catch {
    /* no pg_config */
  }
  if (existsSync('/usr/lib/postgresql'))
    for (const v of readdirSync('/usr/lib/postgresql').sort((a, b) => Number(b) - Number(a)))
      candidates.push(join('/usr/lib/postgresql', v, 'bin'));
  const found = candidates.find((d) => existsSync(join(d, 'initdb')) && existsSync(join(d, 'pg_ctl')));
  if (!found)
    throw new Error(
      'initdb and pg_ctl not found (set PG_BINDIR, or install the PostgreSQL server, e.g. apt-get install postgresql)',
    );
  return found;
}

/** `settings`: more server settings, e.g. `['wal_level=logical']` (Debezium). */
export async function startLocalPostgres(dir: string, settings: string[] = []): Promise<LocalPostgres> {
  const bin = binDir();
  const asRoot = process.getuid?.() === 0;
  const data = join(dir, 'data');
  const run = (tool: string, args: string[]) => {
    const cmd = asRoot ? 'runuser' : join(bin, tool);
    const argv = asRoot ? ['-u', 'postgres', '--', join(bin, tool), ...args] : args;
    try {
      return execFileSync(cmd, argv, {
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'pipe'],
        env: { ...process.env, TZ: 'UTC' },
      });
    } catch (e) {
      const { stdout, stderr } = e as { stdout?: string; stderr?: string };
      throw new Error(`${tool} ${args.join(' ')} failed:\n${stdout ?? ''}${stderr ?? ''}`);
    }
  };
  // a cluster left over from an interrupted run: stopped and deleted
  if (existsSync(join(data, 'postmaster.pid'))) {
    try {
      run('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']);
    } catch {
      /* not running */
    }
  }
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  if (asRoot) execFileSync('chown', ['postgres:', dir]);

  const port = await freePort();
  run('initdb', ['-D', data, '-U', 'postgres', '-A', 'trust', '-E', 'UTF8', '--locale=C.UTF-8', '--no-sync']);
  const server = [
    `-p ${port}`,
    '-c listen_addresses=127.0.0.1',
    `-c unix_socket_directories=${dir}`,
    '-c max_connections=200',
    '-c TimeZone=UTC',
    ...settings.map((s) => `-c ${s}`),
  ].join(' ');
  // every start names the log file: a server started without one keeps pg_ctl's stdout (here a pipe that
  // would never close); restart reuses the server options (postmaster.opts)
  const logFile = join(dir, 'postgres.log');
  run('pg_ctl', ['-D', data, '-l', logFile, '-o', server, '-w', '-t', '60', 'start']);
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    port,
    dir,
    restart: (mode) => {
      run('pg_ctl', ['-D', data, '-l', logFile, '-m', mode, '-w', '-t', '60', 'restart']);
    },
    stop: () => {
      try {
        run('pg_ctl', ['-D', data, '-m', 'fast', '-w', '-t', '60', 'stop']);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}
