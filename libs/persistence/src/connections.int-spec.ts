import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { createTestDatabase, type TestDatabase } from '@flaglens/testing/support/test-database';
import { CONNECTION_KINDS } from '@flaglens/testing/support/lose-connection';
import { openClient } from './connections';

const ROOT = join(__dirname, '..', '..', '..');

/**
 * Every kind of pool the apps open, in a process of its own (an unheard 'error' event of a pg client ends the
 * process, which is what this checks): the server ends a checked-out connection's backend, then an idle one's;
 * the process must live on, the lost query fail, and the pool answer again with a new connection.
 */
describe('connections own their errors (real Postgres)', () => {
  let tdb: TestDatabase;
  beforeAll(async () => {
    tdb = await createTestDatabase('connections');
  });
  afterAll(async () => {
    await tdb?.drop();
  });

  it.each(CONNECTION_KINDS)('%s: a connection lost, checked out or idle, ends no process', async (kind) => {
    const run = await promisify(execFile)(
      process.execPath,
      [
        '-r',
        'ts-node/register/transpile-only',
        '-r',
        'tsconfig-paths/register',
        join(ROOT, 'libs/testing/src/support/lose-connection.ts'),
        kind,
        tdb.url,
      ],
      { cwd: ROOT, env: { ...process.env, TS_NODE_TRANSPILE_ONLY: 'true' } },
    ).catch((e: { code?: number; stderr?: string }) => ({ code: e.code, stdout: '', stderr: e.stderr }));
    expect({ stdout: run.stdout.trim(), stderr: run.stderr }).toEqual({ stdout: 'survived', stderr: '' });
  });

  it('openClient: a lost connection goes to its listener, and fails the next query', async () => {
    const heard: Error[] = [];
    const c = openClient({ connectionString: tdb.url }, (e) => heard.push(e));
    await c.connect();
    const pid = Number((await c.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0].pid);
    const ended = new Promise((r) => c.once('end', r));
    await tdb.query('SELECT pg_terminate_backend($1)', [pid]);
    await ended;
    await expect(c.query('SELECT 1')).rejects.toThrow();
    expect(heard.map((e) => (e as { code?: string }).code)).toContain('57P01');
    await c.end().catch(() => undefined);
  });
});
