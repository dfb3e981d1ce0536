import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Consumer, Kafka } from 'kafkajs';
import { Client } from 'pg';
import { mapDebeziumChange } from '@flaglens/contract';
import { startConnectWorker, type ConnectWorker } from '@flaglens/testing/support/kafka-connect';
import { startLocalPostgres, type LocalPostgres } from '@flaglens/testing/support/local-postgres';

const ROOT = join(__dirname, '..');
export const CONNECTOR_CONFIG = join(ROOT, 'infra', 'connect', 'unleash-events.connector.json');
export const SETUP_SQL = join(ROOT, 'infra', 'connect', 'unleash-events.setup.sql');

/** A Postgres cluster of our own with logical decoding, under .run/ (the machine's server is never touched). */
export function startLogicalPostgres(dir: string): Promise<LocalPostgres> {
  return startLocalPostgres(dir, ['wal_level=logical', 'max_replication_slots=8', 'max_wal_senders=8']);
}

/**
 * Runs infra/connect/unleash-events.setup.sql against Unleash's database (as its owner), the psql variables
 * `:password` and `:dbname` filled in.
 */
export async function setupDebeziumRole(unleashDbUrl: string, password: string): Promise<void> {
  const dbname = new URL(unleashDbUrl).pathname.slice(1);
  const sql = readFileSync(SETUP_SQL, 'utf8')
    .split('\n')
    .filter((l) => !l.trim().startsWith('--'))
    .join('\n')
    .replace(/:password/g, `'${password.replace(/'/g, "''")}'`)
    .replace(/:dbname/g, `"${dbname}"`);
  const c = new Client({ connectionString: unleashDbUrl });
  await c.connect();
  try {
    // the role is cluster-wide: one per cluster
    const exists = await c.query(`SELECT 1 FROM pg_roles WHERE rolname = 'flaglens_debezium'`);
    await c.query(exists.rowCount ? sql.replace(/CREATE ROLE[^;]*;/, '') : sql);
  } finally {
    await c.end();
  }
}

/** The shipped connector config, pointed at this database and Kafka topic prefix. */
export function connectorConfig(
  unleashDbUrl: string,
  password: string,
  prefix: string,
): Record<string, string> {
  const base = JSON.parse(readFileSync(CONNECTOR_CONFIG, 'utf8')) as Record<string, string>;
  const u = new URL(unleashDbUrl);
  return {
    ...base,
    'database.hostname': u.hostname,
    'database.port': u.port || '5432',
    'database.dbname': u.pathname.slice(1),
    'database.password': password,
    'topic.prefix': prefix,
  };
}

export interface DebeziumPath {
  pg: LocalPostgres;
  worker: ConnectWorker;
  /** Debezium's topic of Unleash's events table. */
  topic: string;
  connector: string;
  stop(): Promise<void>;
}

/**
 * Kafka Connect (distributed) with the Debezium connector of the shipped config on Unleash's database: the
 * role, grants and publication of the shipped SQL, the slot created by the connector.
 */
export async function startDebezium(
  kafka: Kafka,
  brokers: string,
  pg: LocalPostgres,
  unleashDbUrl: string,
  label: string,
): Promise<DebeziumPath> {
  const password = `dbz-${randomBytes(8).toString('hex')}`;
  await setupDebeziumRole(unleashDbUrl, password);
  const id = randomBytes(3).toString('hex');
  const prefix = `flaglens_${label}_${id}`;
  const group = `flaglens-${label}-connect-${id}`;
  const topic = `${prefix}.public.events`;
  // Debezium's topic of events, created before the connector: ONE partition (per-flag order, docs/debezium.md),
  // kept forever like ours (the connector's topic.creation.* says the same for a broker that lets it create)
  const admin = kafka.admin();
  await admin.connect();
  await admin.createTopics({
    waitForLeaders: true,
    topics: [
      {
        topic,
        numPartitions: 1,
        replicationFactor: 1,
        configEntries: [{ name: 'retention.ms', value: '-1' }],
      },
    ],
  });
  await admin.disconnect();
  const worker = await startConnectWorker(join(ROOT, '.run', `connect-${label}-${id}`), {
    brokers,
    groupId: group,
  });
  const connector = `unleash-events-${id}`;
  const u = new URL(unleashDbUrl);
  u.username = 'flaglens_debezium';
  await worker.putConnector(connector, connectorConfig(u.toString(), password, prefix));
  return {
    pg,
    worker,
    topic,
    connector,
    stop: async () => {
      await worker.stop();
      const admin = kafka.admin();
      await admin.connect();
      await admin
        .deleteTopics({ topics: [topic, `${group}.configs`, `${group}.offsets`, `${group}.status`] })
        .catch(() => undefined);
      await admin.disconnect();
    },
  };
}

/** Follows Debezium's topic: how many messages, and every event id seen (duplicates counted). */
export class TopicTally {
  messages = 0;
  tombstones = 0;
  readonly ids = new Map<number, number>();
  private consumer?: Consumer;

  async start(kafka: Kafka, topic: string): Promise<void> {
    this.consumer = kafka.consumer({ groupId: `tally-${topic}-${randomBytes(3).toString('hex')}` });
    await this.consumer.connect();
    await this.consumer.subscribe({ topic, fromBeginning: true });
    await this.consumer.run({
      eachMessage: async ({ message }) => {
        this.messages++;
        const d = mapDebeziumChange(message.value);
        if (d.kind === 'tombstone') this.tombstones++;
        if (d.kind === 'event') this.ids.set(d.id, (this.ids.get(d.id) ?? 0) + 1);
      },
    });
  }

  get duplicates(): number {
    let n = 0;
    for (const c of this.ids.values()) n += c - 1;
    return n;
  }

  async stop(): Promise<void> {
    await this.consumer?.disconnect();
  }
}
