import type { INestApplication } from '@nestjs/common';
import type { Kafka } from 'kafkajs';
import { loadConfig } from '@flaglens/config';
import { createTestDatabase, TestDatabase } from '@flaglens/testing/support/test-database';
import {
  BROKERS,
  createTestTopic,
  produce,
  testGroup,
  testKafka,
} from '@flaglens/testing/support/test-kafka';
import { flagEvent, toMessage } from '@flaglens/testing/support/event-factory';
import { runCli } from '@flaglens/testing/support/cli';
import { waitFor } from '@flaglens/testing/support/wait-for';
import { createProjectorApp } from '../../../projector/src/main';
import { LiveProjector } from '../../../projector/src/live-projector.service';

/**
 * The fact the next waits need: the projector found the topic and its consumer joined the group with every
 * partition of the topic. A loaded broker can take long to form a new group; waiting for this first (with
 * room) keeps a slow join from being read as a projection that does not happen, and says which of the two
 * stalled.
 */
async function joined(app: INestApplication, partitions = 3): Promise<void> {
  const projector = app.get(LiveProjector);
  await waitFor(
    `the projector to join its group with ${partitions} partitions`,
    async () =>
      projector.waitingFor === null &&
      projector.consumer.isJoined &&
      projector.consumer.assigned.length === partitions,
    { timeoutMs: 180_000 },
  );
}

/**
 * Waits for `count` rows of `sql` as the projector writes them; on a time-out the message says what the
 * projector had done by then (the rows so far, its partitions, whether it still runs).
 */
async function rows(app: INestApplication, db: TestDatabase, sql: string, count: number): Promise<void> {
  const projector = app.get(LiveProjector);
  let seen: unknown[] = [];
  try {
    await waitFor(
      `${count} rows of ${sql}`,
      async () => {
        seen = await db.query(sql);
        return seen.length === count;
      },
      { timeoutMs: 180_000 },
    );
  } catch (e) {
    const state = {
      seen,
      assigned: projector.consumer.assigned,
      joined: projector.consumer.isJoined,
      waitingFor: projector.waitingFor,
      failure: projector.failure,
      msSinceProgress: Date.now() - projector.consumer.lastProgress,
    };
    throw new Error(`${(e as Error).message}; projector: ${JSON.stringify(state)}`);
  }
}

/**
 * Each test is a chain of waits on a real broker (a group to form, a rebuild to replay and switch): each one is
 * bounded and names what it waited for, and the test's own time-out leaves room for them, so a stall on a loaded
 * machine fails with the step that stalled, not with jest's time-out.
 */
const TEST_TIMEOUT_MS = 420_000;
/** A CLI run (a rebuild of a few events among them) that takes longer than this is reported as stalled. */
const CLI_TIMEOUT_MS = 120_000;
const cli = (env: Record<string, string>, args: string[]) => runCli(env, args, { timeoutMs: CLI_TIMEOUT_MS });

/** Dead letters re-driven after a configuration change are projected exactly once (real Kafka and Postgres). */
describe('dead-letters redrive (CLI, real Kafka and Postgres)', () => {
  let kafka: Kafka;
  let db: TestDatabase;
  let topic: string;
  let dropTopic: () => Promise<void>;
  let app: INestApplication | undefined;
  // a group of its own per run: a member left over from an earlier run cannot delay the join
  const GROUP = `g-redrive-${process.pid}-${Date.now()}`;

  beforeAll(async () => {
    kafka = testKafka();
    db = await createTestDatabase('redrive');
    ({ topic, drop: dropTopic } = await createTestTopic(kafka, 'redrive', 3));
  });

  afterAll(async () => {
    await app?.close();
    await dropTopic();
    await db.drop();
  });

  const env = (extra: Record<string, string> = {}) => ({
    DATABASE_URL: db.url,
    KAFKA_BROKERS: BROKERS,
    KAFKA_TOPIC: topic,
    KAFKA_GROUP_ID: GROUP,
    ...extra,
  });
  const offsets = () =>
    db.query<{ partition: number; next_offset: string }>(
      'SELECT partition, next_offset FROM projector_offsets WHERE group_id = $1 ORDER BY partition',
      [GROUP],
    );

  it(
    'projects each re-driven event once, leaves the still-invalid pending, moves no offset; a second run does nothing',
    async () => {
      const unknown = [101, 102, 103].map((id) => ({
        ...flagEvent(id, 'teleport-flag', id),
        type: 'feature-teleported',
      }));
      // a known event dead-lettered as too large for the projector's MAX_EVENT_BYTES (raised for the re-drive)
      const big = {
        ...flagEvent(200, 'big-flag', 200),
        type: 'project-created',
        featureName: null,
        project: 'big-project',
        data: { id: 'big-project', name: 'Big project', description: 'x'.repeat(3000) },
      };
      await produce(kafka, topic, [
        toMessage(flagEvent(1, 'teleport-flag', 1)),
        ...unknown.map(toMessage),
        { key: 'big-project', value: JSON.stringify(big) },
        { key: 'teleport-flag', value: '{"id": 5, "type": ' },
        toMessage(flagEvent(2, 'teleport-flag', 2)),
      ]);
      app = await createProjectorApp(
        loadConfig(env({ MAX_EVENT_BYTES: '2048', ACCEPT_UNKNOWN_EVENT_TYPES: 'false', LOG_LEVEL: 'error' })),
      );
      app.useLogger(['error']);
      await app.init();
      await joined(app);
      await rows(app, db, 'SELECT partition, "offset", reason_code FROM dead_letters ORDER BY id', 5);
      await rows(app, db, 'SELECT id FROM event_log', 2);
      const before = await offsets();

      const listed = JSON.parse((await cli(env(), ['dead-letters', 'list', '--json'])).stdout) as {
        id: number;
        reasonCode: string;
      }[];
      expect(listed.map((d) => d.reasonCode).sort()).toEqual([
        'malformed-json',
        'too-large',
        'unknown-type',
        'unknown-type',
        'unknown-type',
      ]);
      const byReason = JSON.parse(
        (await cli(env(), ['dead-letters', 'list', '--reason', 'unknown-type', '--json', '--limit', '2']))
          .stdout,
      ) as unknown[];
      expect(byReason).toHaveLength(2);
      const shown = JSON.parse(
        (await cli(env(), ['dead-letters', 'show', String(listed[0].id), '--json'])).stdout,
      ) as { value: string };
      expect(shown.value.length).toBeGreaterThan(0);

      // the cause is fixed by configuration: unknown types accepted, larger events allowed
      const fixed = env({ ACCEPT_UNKNOWN_EVENT_TYPES: 'true', MAX_EVENT_BYTES: '1048576' });
      // the three teleport events come before event 2 of their flag, already applied: not applied now, but
      // accepted for a rebuild (which applies them in their place); the big project is applied now
      const first = JSON.parse(
        (await cli(fixed, ['dead-letters', 'redrive', '--json', '--no-rebuild', '--chunk-bytes', '1000']))
          .stdout,
      );
      expect(first).toMatchObject({ examined: 5, stored: 1, duplicate: 0, stillInvalid: 1, needRebuild: 3 });
      expect(
        (await db.query<{ id: string }>('SELECT id FROM event_log ORDER BY id')).map((r) => Number(r.id)),
      ).toEqual([1, 2, 200]);
      // the rebuild applies them, with the configuration of the moment (they stay accepted: never dropped)
      await cli(env(), ['rebuild', '--drop-old-after', '0']);
      await db.useActive();
      const second = JSON.parse((await cli(fixed, ['dead-letters', 'redrive', '--json'])).stdout);
      expect(second).toMatchObject({ examined: 1, stored: 0, duplicate: 0, stillInvalid: 1, needRebuild: 0 });

      const stored = await db.query<{ id: string; known_type: boolean }>(
        'SELECT id, known_type FROM event_log ORDER BY id',
      );
      expect(stored.map((r) => Number(r.id))).toEqual([1, 2, 101, 102, 103, 200]);
      expect(stored.filter((r) => !r.known_type).map((r) => Number(r.id))).toEqual([101, 102, 103]);
      // the known event went through every projection
      const project = await db.query<{ name: string }>(`SELECT name FROM projects WHERE id = 'big-project'`);
      expect(project).toEqual([{ name: 'Big project' }]);
      const dead = await db.query<{
        reason_code: string;
        redriven_at: Date | null;
        redrive_outcome: string | null;
      }>('SELECT reason_code, redriven_at, redrive_outcome FROM dead_letters ORDER BY id');
      expect(
        dead
          .filter((d) => d.redriven_at !== null)
          .map((d) => d.redrive_outcome)
          .sort(),
      ).toEqual(['rebuild', 'rebuild', 'rebuild', 'stored']);
      const stillBad = dead.find((d) => d.reason_code === 'malformed-json')!;
      expect(stillBad.redriven_at).toBeNull();
      expect(stillBad.redrive_outcome).toMatch(/^still invalid .*malformed-json/);
      // the live offsets did not move (the rebuild handed its own, equal, positions to the live group)
      expect(await offsets()).toEqual(before);

      // status shows the lag, the member and the dead letters
      const status = JSON.parse((await cli(env(), ['status', '--json'])).stdout);
      expect(status).toMatchObject({
        lag: 0,
        deadLetters: { total: 5, pending: 1 },
        projectionVersion: { version: 2 },
      });
      expect(status.partitions).toHaveLength(3);
      expect(status.group.members).toHaveLength(1);
      expect(status.group.members[0].partitions).toEqual([0, 1, 2]);
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'keeps the log`s meaning: a re-driven feature-created does not revive the flag archived after it; answers equal a rebuild`s',
    async () => {
      const { topic: t2, drop } = await createTestTopic(kafka, 'redrive-order', 3);
      const db2 = await createTestDatabase('redrive_order');
      const single = await createTestDatabase('redrive_order_rebuild');
      const env2 = (d: TestDatabase, extra: Record<string, string> = {}) => ({
        DATABASE_URL: d.url,
        KAFKA_BROKERS: BROKERS,
        KAFKA_TOPIC: t2,
        KAFKA_GROUP_ID: testGroup('g-order'),
        LOG_LEVEL: 'error',
        ...extra,
      });
      const apps: INestApplication[] = [];
      try {
        const created = {
          ...flagEvent(1, 'order-flag', 0),
          type: 'feature-created',
          data: { name: 'order-flag', type: 'release', description: 'x'.repeat(3000) },
        };
        const archived = { ...flagEvent(2, 'order-flag', 2), type: 'feature-archived', data: null };
        await produce(kafka, t2, [toMessage(created), toMessage(archived)]);
        const live = await createProjectorApp(loadConfig(env2(db2, { MAX_EVENT_BYTES: '2048' })));
        live.useLogger(['error']);
        await live.init();
        apps.push(live);
        await joined(live);
        await rows(live, db2, 'SELECT id FROM event_log', 1);
        await rows(live, db2, 'SELECT partition, "offset", reason_code FROM dead_letters', 1);

        // the cause is fixed (a larger limit) and the dead letter re-driven: it comes before the archive
        // with --json: one JSON document on stdout, the summary and the rebuild it ran (progress on stderr)
        const out = await cli(env2(db2), ['dead-letters', 'redrive', '--json']);
        expect(JSON.parse(out.stdout)).toMatchObject({
          needRebuild: 1,
          rebuild: { switched: true, poison: [] },
        });
        await db2.useActive();
        const flag = await db2.query<{ archived_at: Date | null }>(
          `SELECT archived_at FROM flag_state WHERE name = 'order-flag'`,
        );
        // archived, as the log says (applied at once, the creation would have revived it)
        expect(flag).toHaveLength(1);
        expect(flag[0].archived_at).not.toBeNull();

        // every answer equals a rebuild's under the same limits: one projector from offset 0, fresh database
        const fresh = await createProjectorApp(
          loadConfig({ ...env2(single), KAFKA_GROUP_ID: testGroup('g-order-single') }),
        );
        fresh.useLogger(['error']);
        await fresh.init();
        apps.push(fresh);
        await joined(fresh);
        await rows(fresh, single, 'SELECT id FROM event_log', 2);
        const table = (d: TestDatabase, sql: string) => d.query(sql);
        for (const sql of [
          `SELECT name, project, type, stale, created_at, archived_at, deleted FROM flag_state ORDER BY name`,
          `SELECT id, body FROM event_log ORDER BY id`,
          `SELECT * FROM insights_flag_deltas ORDER BY 1, 2, 3, 4`,
          `SELECT * FROM event_counts ORDER BY names`,
        ])
          expect(await table(db2, sql)).toEqual(await table(single, sql));
      } finally {
        for (const a of apps) await a.close();
        await drop();
        await db2.drop();
        await single.drop();
      }
    },
    TEST_TIMEOUT_MS,
  );
});
