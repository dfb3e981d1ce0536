import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import type { Kafka } from 'kafkajs';
import { createTestDatabase, TestDatabase } from '@flaglens/testing/support/test-database';
import { BROKERS, createTestTopic, testKafka } from '@flaglens/testing/support/test-kafka';
import { freePort, httpGet } from '@flaglens/testing/support/http';
import { runCli } from '@flaglens/testing/support/cli';
import { startApp, stopApp } from '@flaglens/testing/support/processes';
import { waitFor } from '@flaglens/testing/support/wait-for';

/** The whole system for one e2e file: a fresh database and topic, the projector and the api as processes. */
export interface Stack {
  kafka: Kafka;
  db: TestDatabase;
  topic: string;
  port: number;
  env: Record<string, string>;
  /** What both apps printed (tests check that secrets never appear). */
  logs: string[];
  /** Publishes an NDJSON file through the operator CLI; returns its stdout. */
  publish(file: string): Promise<string>;
  /** Waits until the active version's event log holds `n` events. */
  waitForEvents(n: number): Promise<void>;
  stop(): Promise<void>;
}

export async function startStack(label: string, extraEnv: Record<string, string> = {}): Promise<Stack> {
  const kafka = testKafka();
  const db = await createTestDatabase(label);
  const { topic, drop } = await createTestTopic(kafka, label.replace(/_/g, '-'));
  const port = await freePort();
  const env = {
    DATABASE_URL: db.url,
    KAFKA_BROKERS: BROKERS,
    KAFKA_TOPIC: topic,
    // a group of its own: a group shared by stacks on other topics would hand it their partitions
    KAFKA_GROUP_ID: `e2e-${label}-${randomBytes(3).toString('hex')}`,
    PORT: String(port),
    PROJECTOR_PORT: String(await freePort()),
    ...extraEnv,
  };
  const logs: string[] = [];
  const apps: ChildProcess[] = [startApp('projector', env, logs), startApp('api', env, logs)];
  const stopAll = async () => {
    await Promise.all(apps.map((a) => stopApp(a)));
    await drop();
    await db.drop();
  };
  try {
    // compiled, the apps start in about a second; a loaded 2-core machine has taken much longer
    await waitFor('api up', async () => (await httpGet(port, '/health/live')).status === 200, {
      timeoutMs: 120000,
      hopeless: () => {
        const gone = apps.find((a) => a.exitCode !== null || a.signalCode !== null);
        return gone && `an app exited (${gone.exitCode ?? gone.signalCode})`;
      },
    });
  } catch (e) {
    // a stack that did not start leaves no process behind (jest would wait for it forever), and says why
    await stopAll().catch(() => undefined);
    throw new Error(
      `${e instanceof Error ? e.message : String(e)}; the apps printed:\n${logs.slice(-20).join('')}`,
    );
  }
  const count = async () =>
    Number((await db.query<{ n: string }>('SELECT count(*) AS n FROM event_log'))[0].n);
  return {
    kafka,
    db,
    topic,
    port,
    env,
    logs,
    publish: async (file) => (await runCli(env, ['publish', file])).stdout,
    waitForEvents: async (n) => {
      await waitFor(`${n} events projected`, async () => (await count()) === n, { timeoutMs: 90000 });
    },
    stop: stopAll,
  };
}
