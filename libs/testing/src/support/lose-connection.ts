/*
 * Run as a process by libs/persistence/src/connections.int-spec.ts: opens one kind of connection the apps
 * open, and has the server end its backend twice, once while a client is checked out (a transaction, a
 * cursor, an as-of read, a checkpoint) and once while it is idle in the pool. An unheard 'error' event of a
 * pg client ends the process (exit 1, the error on stderr); a process that outlives both losses, whose lost
 * query failed and whose pool answers again, prints `survived` and exits 0.
 *   node -r ts-node/register/transpile-only -r tsconfig-paths/register lose-connection.ts <kind> <url>
 */
import type { Client, PoolClient } from 'pg';
import { ActiveVersionPool, Database, openClient, openPool } from '@flaglens/persistence';

export const CONNECTION_KINDS = ['openPool', 'Database', 'ActiveVersionPool'] as const;
export type ConnectionKind = (typeof CONNECTION_KINDS)[number];

interface Opened {
  take(): Promise<PoolClient>;
  again(): Promise<unknown>;
  close(): Promise<void>;
}

async function open(kind: ConnectionKind, url: string): Promise<Opened> {
  if (kind === 'openPool') {
    const pool = openPool({ connectionString: url, max: 2 });
    return { take: () => pool.connect(), again: () => pool.query('SELECT 1'), close: () => pool.end() };
  }
  if (kind === 'Database') {
    const db = new Database({ url, max: 2, prepared: true });
    return { take: () => db.connect(), again: () => db.query('SELECT 1'), close: () => db.end() };
  }
  const active = new ActiveVersionPool(url, 2, 1000, 0, 0);
  await active.refresh();
  return {
    take: () => active.pool().connect(),
    again: () => active.pool().query('SELECT 1'),
    close: () => active.close(),
  };
}

async function backendPid(c: Client | PoolClient): Promise<number> {
  return Number((await c.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0].pid);
}

async function gone(admin: Client, pid: number): Promise<void> {
  for (let i = 0; i < 500; i++) {
    if ((await admin.query('SELECT 1 FROM pg_stat_activity WHERE pid = $1', [pid])).rowCount === 0) break;
    await new Promise((r) => setTimeout(r, 20));
  }
  // the client reads the server's goodbye after the backend is gone
  await new Promise((r) => setTimeout(r, 200));
}

async function main(kind: ConnectionKind, url: string): Promise<void> {
  const admin = openClient({ connectionString: url });
  await admin.connect();
  const opened = await open(kind, url);
  // checked out
  const busy = await opened.take();
  const pid = await backendPid(busy);
  await admin.query('SELECT pg_terminate_backend($1)', [pid]);
  await gone(admin, pid);
  if (
    await busy.query('SELECT 1').then(
      () => true,
      () => false,
    )
  )
    throw new Error('a query on the lost connection succeeded');
  busy.release(true);
  await opened.again();
  // idle in the pool
  const idle = await opened.take();
  const idlePid = await backendPid(idle);
  idle.release();
  await admin.query('SELECT pg_terminate_backend($1)', [idlePid]);
  await gone(admin, idlePid);
  await opened.again();
  await opened.close();
  await admin.end();
  console.log('survived');
}

if (require.main === module) {
  const [kind, url] = process.argv.slice(2) as [ConnectionKind, string];
  if (!CONNECTION_KINDS.includes(kind) || !url) {
    console.error(`usage: lose-connection.ts <${CONNECTION_KINDS.join('|')}> <postgres url>`);
    process.exit(2);
  }
  main(kind, url).then(
    () => process.exit(0),
    (e: Error) => {
      console.error(e);
      process.exit(3);
    },
  );
}
