import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { request, type IncomingMessage } from 'node:http';
import { join } from 'node:path';
import type { Pool } from 'pg';
import { openPool, searchPathOption } from '@flaglens/persistence';
import { createTestDatabase, type TestDatabase } from '@flaglens/testing/support/test-database';
import { BROKERS, createTestTopic, produce, testKafka } from '@flaglens/testing/support/test-kafka';
import { flagEvent, toMessage } from '@flaglens/testing/support/event-factory';
import { freePort, httpGet } from '@flaglens/testing/support/http';
import { startLocalPostgres, type LocalPostgres } from '@flaglens/testing/support/local-postgres';
import { startBuiltApp, stopApp } from '@flaglens/testing/support/processes';
import { waitFor } from '@flaglens/testing/support/wait-for';

const ROOT = join(__dirname, '..');
/** More events than the api answers in one piece (WHOLE_LIST_EVENTS): the list is streamed from a cursor. */
const LONG_LIST = 30_000;

/**
 * Postgres restarts under the running apps (built, as deployed), each while a connection is checked out: the
 * api streaming a long list from a cursor and the projector making as-of checkpoints on its own connection.
 * Neither process may die of it (an unheard 'error' event of a pg client would end it); both carry on once
 * the server is back, and a stopped projector closes its connections (no abrupt end in the server's log).
 */
describe('a Postgres restart under the apps (running apps, a Postgres cluster of its own)', () => {
  let pg: LocalPostgres;
  let db: TestDatabase;
  /** the test's own reads: a pool, which opens new connections after a restart */
  let reads: Pool;
  let dropTopic: () => Promise<void>;
  let projector: ChildProcess;
  let api: ChildProcess;
  let port: number;
  const kafka = testKafka();
  const logs: string[] = [];
  let topic: string;
  let published = 0;

  const keep = (app: string, child: ChildProcess) => {
    child.stdout?.on('data', (d: Buffer) => logs.push(`[${app}] ${d}`));
    child.stderr?.on('data', (d: Buffer) => logs.push(`[${app}] ${d}`));
    return child;
  };
  const alive = () => ({
    projector: projector.exitCode ?? projector.signalCode,
    api: api.exitCode ?? api.signalCode,
  });
  const rows = async (sql: string) => (await reads.query(sql)).rows as Record<string, unknown>[];
  const count = async () => Number((await rows('SELECT count(*) AS n FROM event_log'))[0].n);
  const checkpoints = async () =>
    Number((await rows('SELECT count(*) AS n FROM flaglens_v1_as_of.checkpoints'))[0].n);
  const publish = async (flag: string, n: number) => {
    const events = Array.from({ length: n }, (_, i) => flagEvent(published + i + 1, flag, i));
    published += n;
    await produce(kafka, topic, events.map(toMessage));
  };

  beforeAll(async () => {
    pg = await startLocalPostgres(join(ROOT, '.run', `pg-restart-${randomBytes(3).toString('hex')}`), [
      // an abrupt end of a client's connection (no Terminate message) is logged at DEBUG1, with the client's name
      'log_min_messages=debug1',
      "log_line_prefix='%a '",
    ]);
    db = await createTestDatabase('pg_restart', pg.url);
    reads = openPool({ connectionString: db.url, max: 2, options: searchPathOption('flaglens_v1') });
    const t = await createTestTopic(kafka, 'pg-restart');
    topic = t.topic;
    dropTopic = t.drop;
    port = await freePort();
    const env = {
      DATABASE_URL: db.url,
      KAFKA_BROKERS: BROKERS,
      KAFKA_TOPIC: topic,
      KAFKA_GROUP_ID: `pg-restart-${randomBytes(3).toString('hex')}`,
      PORT: String(port),
      PROJECTOR_PORT: String(await freePort()),
      FLAGLENS_AUTH: 'off',
      // many checkpoints to make: the checkpoints' connection is checked out for seconds at a time
      AS_OF_CHECKPOINT_EVENTS: '10',
      LOG_LEVEL: 'info',
    };
    projector = keep('projector', startBuiltApp('projector', env, ['ignore', 'pipe', 'pipe']));
    api = keep('api', startBuiltApp('api', env, ['ignore', 'pipe', 'pipe']));
    await waitFor('api up', async () => (await httpGet(port, '/health/live')).status === 200, {
      timeoutMs: 60_000,
    });
  });

  afterAll(async () => {
    await Promise.all([projector, api].filter(Boolean).map((a) => stopApp(a)));
    await dropTopic?.();
    await reads?.end();
    await db?.drop().catch(() => undefined);
    pg?.stop();
  });

  it('neither app dies; both carry on when the server is back', async () => {
    await publish('long-list', LONG_LIST);
    await publish('other', 400);
    expect(published).toBe(30_400);
    await waitFor('every event projected', async () => (await count()) === published, { timeoutMs: 120_000 });

    // the projector is idle: it makes the due checkpoints (3,040) on its own connection, checked out meanwhile
    await waitFor('checkpoints being made', async () => (await checkpoints()) > 0, { timeoutMs: 60_000 });
    // the api streams the long list to a reader that stops reading: its cursor's connection stays checked out
    const stalled = await new Promise<IncomingMessage>((resolve, reject) =>
      request({ host: '127.0.0.1', port, path: '/api/admin/events/long-list' }, resolve)
        .on('error', reject)
        .end(),
    );
    expect(stalled.statusCode).toBe(200);
    stalled.once('data', () => stalled.pause());
    const cursorOpen = async () =>
      (
        await rows(
          `SELECT 1 FROM pg_stat_activity WHERE application_name = 'flaglens-api' AND state = 'idle in transaction'`,
        )
      ).length > 0;
    await waitFor('the cursor open', cursorOpen, { timeoutMs: 30_000, intervalMs: 50 });
    await new Promise((r) => setTimeout(r, 1_000));
    // both connections are still checked out when the server goes
    expect({ cursor: await cursorOpen(), checkpoints: (await checkpoints()) < published / 10 }).toEqual({
      cursor: true,
      checkpoints: true,
    });

    pg.restart('immediate');
    stalled.destroy();
    await new Promise((r) => setTimeout(r, 3_000));
    expect(alive()).toEqual({ projector: null, api: null });

    // traffic across a second restart: events published and reads made while the server goes away
    const more = publish('after', 300);
    pg.restart('fast');
    await more;
    await waitFor('every event projected after the restarts', async () => (await count()) === published, {
      timeoutMs: 120_000,
    });
    const list = await waitFor('the long list again', async () => {
      const r = await httpGet(port, '/api/admin/events/long-list');
      return r.status === 200 ? r : undefined;
    });
    expect((list!.json() as { events: unknown[] }).events).toHaveLength(LONG_LIST);
    const asOf = await httpGet(port, '/api/admin/projects/default/overview?at=2026-01-01T00:30:00Z');
    expect(asOf.status).toBe(200);
    expect(alive()).toEqual({ projector: null, api: null });
    expect(logs.join('')).not.toMatch(/Connection terminated unexpectedly\n\s+at /);

    // a stopped projector ends its pool after its consumer: no connection of its ends abruptly
    const log = join(pg.dir, 'postgres.log');
    const before = readFileSync(log, 'utf8').length;
    await stopApp(projector);
    expect(projector.exitCode ?? projector.signalCode).not.toBeNull();
    await new Promise((r) => setTimeout(r, 500));
    const abrupt = readFileSync(log, 'utf8')
      .slice(before)
      .split('\n')
      .filter((l) => l.startsWith('flaglens-projector') && l.includes('unexpected EOF on client connection'));
    expect(abrupt).toEqual([]);
  });
});
