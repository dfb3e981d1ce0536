import type { INestApplication } from '@nestjs/common';
import type { Kafka } from 'kafkajs';
import { loadConfig } from '@flaglens/config';
import { createTestDatabase, TestDatabase } from '@flaglens/testing/support/test-database';
import { BROKERS, createTestTopic, produce, testKafka } from '@flaglens/testing/support/test-kafka';
import { flagEvent, toMessage } from '@flaglens/testing/support/event-factory';
import { runCliToExit } from '@flaglens/testing/support/cli';
import { waitFor } from '@flaglens/testing/support/wait-for';
import { createProjectorApp } from '../../../projector/src/main';
import { STATUS_UNHEALTHY } from './status.command';

/** `status` as a check: its exit code says whether the projector is consuming (real Kafka and Postgres). */
describe('CLI status as a check (real Kafka and Postgres)', () => {
  let kafka: Kafka;
  let db: TestDatabase;
  let topic: string;
  let dropTopic: () => Promise<void>;
  let app: INestApplication | undefined;
  let env: Record<string, string>;
  const GROUP = `g-status-check-${process.pid}`;

  beforeAll(async () => {
    kafka = testKafka();
    db = await createTestDatabase('status_check');
    ({ topic, drop: dropTopic } = await createTestTopic(kafka, 'status-check', 2));
    env = { DATABASE_URL: db.url, KAFKA_BROKERS: BROKERS, KAFKA_TOPIC: topic, KAFKA_GROUP_ID: GROUP };
    await produce(kafka, topic, [
      toMessage(flagEvent(1, 'check-a', 0)),
      toMessage(flagEvent(2, 'check-b', 1)),
      toMessage(flagEvent(3, 'check-c', 2)),
    ]);
  });

  afterAll(async () => {
    await app?.close();
    await dropTopic?.();
    await db.drop();
  });

  const status = async (args: string[] = []) => {
    const r = await runCliToExit(env, ['status', '--json', ...args]);
    // JSON output: one document on stdout, nothing else
    return { ...r, json: JSON.parse(r.stdout) as { healthy: boolean; problems: string[]; lag: number } };
  };

  it('no projector consuming: unhealthy (exit 3), the empty group and the never-consumed partitions named', async () => {
    const r = await status();
    expect(r.code).toBe(STATUS_UNHEALTHY);
    expect(r.json.healthy).toBe(false);
    expect(r.json.problems[0]).toBe('the consumer group has no members: no projector is consuming');
    expect(r.json.problems.slice(1).join('\n')).toMatch(/never consumed/);
    // the text report: the same problems on stderr, the report on stdout, the same exit code
    const text = await runCliToExit(env, ['status']);
    expect(text.code).toBe(STATUS_UNHEALTHY);
    expect(text.stdout).toMatch(/^topic /);
    expect(text.stderr).toMatch(/^flaglens status: unhealthy: the consumer group has no members/);
  });

  it('a projector consuming and caught up: healthy, exit 0', async () => {
    app = await createProjectorApp(loadConfig({ ...env, LOG_LEVEL: 'error' }));
    app.useLogger(['error']);
    await app.init();
    await waitFor('3 events', async () => (await db.query('SELECT id FROM event_log')).length === 3);
    const r = await waitFor('healthy', async () => {
      const s = await status();
      return s.code === 0 ? s : null;
    });
    expect(r!.json).toMatchObject({ healthy: true, problems: [], lag: 0 });
    expect(r!.stderr).toBe('');
  });

  it('a partition behind whose position has not moved: stalled, exit 3, though the group has a member', async () => {
    // the stored position of one partition goes back one message, last moved ten minutes ago; the running
    // projector has nothing new to read there, so it does not move (what a stuck consumer looks like)
    const [p] = await db.query<{ partition: number }>(
      `UPDATE projector_offsets SET next_offset = next_offset - 1, updated_at = now() - interval '10 minutes'
        WHERE group_id = $1 AND topic = $2
          AND partition = (SELECT min(partition) FROM projector_offsets
                            WHERE group_id = $1 AND topic = $2 AND next_offset > 0)
        RETURNING partition`,
      [GROUP, topic],
    );
    const r = await status(['--stall-seconds', '300']);
    expect(r.code).toBe(STATUS_UNHEALTHY);
    expect(r.json.problems).toEqual([
      expect.stringMatching(
        new RegExp(
          `^partition ${p.partition} is stalled: 1 message\\(s\\) behind, no progress for 6\\d\\d s$`,
        ),
      ),
    ]);
    // under a longer threshold it is only behind, not stalled
    expect((await status(['--stall-seconds', '900'])).code).toBe(0);
  });
});
