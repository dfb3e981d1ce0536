import { randomBytes } from 'node:crypto';
import { createTestDatabase, type TestDatabase } from '@flaglens/testing/support/test-database';
import { BROKERS, createTestTopic, produce, testKafka } from '@flaglens/testing/support/test-kafka';
import { freePort } from '@flaglens/testing/support/http';
import { startBuiltApp, stopApp } from '@flaglens/testing/support/processes';
import { waitFor } from '@flaglens/testing/support/wait-for';

/**
 * The projector (built, as deployed) meeting Debezium's change events fed straight to its topic, keyed by the
 * row's id, stops by itself: exit 78 (a configuration it refuses), the reason and the fix in its log, nothing
 * projected.
 */
describe('a misconfigured topic stops the projector (running app)', () => {
  let db: TestDatabase;
  let drop: () => Promise<void>;
  afterAll(async () => {
    await drop?.();
    await db?.drop();
  });

  it('EVENT_FORMAT=debezium on Debezium keyed rows: exit 78, the fix logged, nothing projected', async () => {
    const kafka = testKafka();
    const t = await createTestTopic(kafka, 'misconfigured');
    drop = t.drop;
    const row = (id: number) => ({
      id,
      created_at: '2026-11-01T10:00:00.123Z',
      type: 'feature-created',
      created_by: 'admin',
      created_by_user_id: 1,
      data: JSON.stringify({ name: `flag-${id}`, project: 'default', type: 'release' }),
      pre_data: null,
      tags: null,
      feature_name: `flag-${id}`,
      project: 'default',
      environment: null,
    });
    await produce(
      kafka,
      t.topic,
      Array.from({ length: 30 }, (_, i) => ({
        key: JSON.stringify({ id: i + 1 }),
        value: JSON.stringify({ before: null, after: row(i + 1), op: 'c', source: { table: 'events' } }),
      })),
    );
    db = await createTestDatabase('misconfigured');
    const out: string[] = [];
    const projector = startBuiltApp(
      'projector',
      {
        DATABASE_URL: db.url,
        KAFKA_BROKERS: BROKERS,
        KAFKA_TOPIC: t.topic,
        KAFKA_GROUP_ID: `misconfigured-${randomBytes(3).toString('hex')}`,
        PROJECTOR_PORT: String(await freePort()),
        EVENT_FORMAT: 'debezium',
      },
      ['ignore', 'pipe', 'pipe'],
    );
    projector.stdout!.on('data', (d: Buffer) => out.push(d.toString()));
    projector.stderr!.on('data', (d: Buffer) => out.push(d.toString()));
    const exited = new Promise<number | null>((resolve) => projector.once('exit', (code) => resolve(code)));
    try {
      await waitFor('the projector to stop', async () => projector.exitCode !== null, { timeoutMs: 90_000 });
    } finally {
      await stopApp(projector);
    }
    expect(await exited).toBe(78);
    expect(out.join('')).toMatch(
      /the projector stops: KAFKA_TOPIC receives Debezium's change events straight/,
    );
    expect(out.join('')).toContain('flaglens source debezium --from <that topic>');
    const [n] = await db.query<{ events: string; dead: string }>(
      'SELECT (SELECT count(*) FROM event_log) AS events, (SELECT count(*) FROM dead_letters) AS dead',
    );
    expect(n).toEqual({ events: '0', dead: '0' });
  });
});
