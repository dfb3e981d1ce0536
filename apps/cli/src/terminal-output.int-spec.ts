import type { Kafka } from 'kafkajs';
import { createTestDatabase, TestDatabase } from '@flaglens/testing/support/test-database';
import {
  BROKERS,
  createTestTopic,
  produce,
  testGroup,
  testKafka,
} from '@flaglens/testing/support/test-kafka';
import { flagEvent, toMessage } from '@flaglens/testing/support/event-factory';
import { runCli, runCliToExit } from '@flaglens/testing/support/cli';
import { STATUS_UNHEALTHY } from './status/status.command';
import { waitFor } from '@flaglens/testing/support/wait-for';
import { loadConfig } from '@flaglens/config';
import { createProjectorApp } from '../../projector/src/main';

/** Characters a terminal may act on; tab and newline are allowed as the output's own layout. */
const ACTIVE =
  // eslint-disable-next-line no-control-regex
  /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;

/**
 * What the operator CLI prints from event-derived text (dead-letter reasons and raw values, rebuild poison
 * lines, status) reaches the terminal escaped (the CLI as a process; real Kafka and Postgres).
 */
describe('CLI output of hostile event text (real Kafka and Postgres)', () => {
  let kafka: Kafka;
  let db: TestDatabase;
  let topic: string;
  let dropTopic: () => Promise<void>;
  let env: Record<string, string>;

  beforeAll(async () => {
    kafka = testKafka();
    db = await createTestDatabase('terminal');
    ({ topic, drop: dropTopic } = await createTestTopic(kafka, 'terminal', 1));
    env = {
      DATABASE_URL: db.url,
      KAFKA_BROKERS: BROKERS,
      KAFKA_TOPIC: topic,
      KAFKA_GROUP_ID: testGroup('g-terminal'),
      // strict: the unknown type below is dead-lettered, its reason printed
      ACCEPT_UNKNOWN_EVENT_TYPES: 'false',
    };
    await produce(kafka, topic, [
      toMessage(flagEvent(1, 'plain-flag', 0)),
      // malformed JSON: the parser's message quotes the text (clear screen, a hyperlink, a window title)
      {
        key: 'k',
        value:
          '\u001b[2J\u001b[H\u001b]8;;https://evil.example\u0007click\u001b]8;;\u0007\u001b]0;owned\u0007',
      },
      // an unknown type, quoted in the reason: a one-character CSI, a right-to-left override, a separator
      toMessage({ ...flagEvent(2, 'plain-flag', 2), type: 'x\u009b31m\u202eevil\u2028' }),
    ]);
    // the live projector stores them (the rebuild below then replays up to its positions)
    const app = await createProjectorApp(loadConfig({ ...env, LOG_LEVEL: 'error' }));
    app.useLogger(['error']);
    await app.init();
    try {
      await waitFor(
        '2 dead letters',
        async () => (await db.query('SELECT id FROM dead_letters')).length === 2,
      );
      await waitFor('1 event', async () => (await db.query('SELECT id FROM event_log')).length === 1);
    } finally {
      await app.close();
    }
  });

  afterAll(async () => {
    await dropTopic();
    await db.drop();
  });

  function clean(what: string, out: string): void {
    const hit = ACTIVE.exec(out);
    expect([what, hit && JSON.stringify(out.slice(Math.max(0, hit.index - 40), hit.index + 10))]).toEqual([
      what,
      null,
    ]);
  }

  it('rebuild prints its poison lines escaped', async () => {
    const { stdout, stderr } = await runCli(env, ['rebuild', '--drop-old-after', '0']);
    clean('rebuild stdout', stdout);
    clean('rebuild stderr', stderr);
    const poison = stderr.split('\n').filter((l) => l.startsWith('POISON'));
    expect(poison).toHaveLength(2);
    expect(poison.join('\n')).toContain('\\u001b');
    expect(poison.join('\n')).toContain('\\u009b');
  });

  it('dead-letters list and show, as text and as JSON (which parses back to the stored reason)', async () => {
    const stored = await db.query<{ id: string; reason: string }>(
      'SELECT id, reason FROM dead_letters ORDER BY id',
    );
    expect(stored).toHaveLength(2);
    const list = await runCli(env, ['dead-letters', 'list']);
    clean('list', list.stdout);
    const listJson = await runCli(env, ['dead-letters', 'list', '--json']);
    clean('list --json', listJson.stdout);
    expect((JSON.parse(listJson.stdout) as { reason: string }[]).map((d) => d.reason)).toEqual(
      stored.map((d) => d.reason),
    );
    for (const { id, reason } of stored) {
      const show = await runCli(env, ['dead-letters', 'show', id]);
      clean(`show ${id}`, show.stdout);
      const showJson = await runCli(env, ['dead-letters', 'show', id, '--json']);
      clean(`show ${id} --json`, showJson.stdout);
      expect((JSON.parse(showJson.stdout) as { reason: string }).reason).toBe(reason);
    }
  });

  it('status, as text and as JSON', async () => {
    // a dead letter stored with a hostile reason code (the table takes any text)
    await db.query(
      `INSERT INTO dead_letters (topic, partition, "offset", message_key, message_value, reason_code, reason)
       VALUES ($1, 0, 99, NULL, NULL, $2, 'x')`,
      [topic, 'code\u001b[31m\u009b'],
    );
    // no projector runs now: status reports, and exits unhealthy (the group is empty)
    const text = await runCliToExit(env, ['status']);
    const json = await runCliToExit(env, ['status', '--json']);
    expect([text.code, json.code]).toEqual([STATUS_UNHEALTHY, STATUS_UNHEALTHY]);
    clean('status', text.stdout);
    clean('status stderr', text.stderr);
    clean('status --json', json.stdout);
  });
});
