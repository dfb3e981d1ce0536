/**
 * Waits for the Kafka broker to answer, then makes sure the event topic exists.
 *
 *   npx ts-node --transpile-only scripts/ensure-topic.ts [--wait <seconds>] [--wait-only] [--check]
 *
 * --wait <s>    keep retrying the connection for up to <s> seconds (default 60)
 * --wait-only   only wait until the broker answers (lists topics); create nothing
 * --check       like --wait-only but a single quick attempt; exit 1 if the broker does not answer
 *
 * Env: KAFKA_BROKERS (default 127.0.0.1:9092, comma-separated), KAFKA_TOPIC (default flaglens.events),
 *      KAFKA_PARTITIONS (default 6), KAFKA_REPLICATION_FACTOR (default 1).
 *
 * The topic is the log of record (rebuilds replay it from offset 0), so it is created with unlimited
 * retention (retention.ms=-1). An existing topic is never altered: differences from the expected settings
 * are reported as warnings. Idempotent; prints what it did. Exit status: 0 ok, 1 broker unreachable or
 * creation failed.
 */
import { Admin, ConfigResourceTypes, Kafka, logLevel } from 'kafkajs';
import { createTopicWithLeaders, kafkaSecurityFromEnv } from '@flaglens/kafka';

const MAX_MESSAGE_BYTES = 4194304;
const EXPECTED_CONFIG: Record<string, string> = {
  'retention.ms': '-1',
  'max.message.bytes': String(MAX_MESSAGE_BYTES),
};

interface Options {
  waitSeconds: number;
  waitOnly: boolean;
  check: boolean;
}

function parseArgs(argv: string[]): Options {
  const opts: Options = { waitSeconds: 60, waitOnly: false, check: false };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--wait') {
      const value = Number(argv[++i]);
      if (!Number.isFinite(value) || value < 0) throw new Error(`--wait needs a number of seconds`);
      opts.waitSeconds = value;
    } else if (arg === '--wait-only') {
      opts.waitOnly = true;
    } else if (arg === '--check') {
      opts.check = true;
      opts.waitOnly = true;
      opts.waitSeconds = 0;
    } else {
      throw new Error(`unknown argument: ${arg}`);
    }
  }
  return opts;
}

function positiveInt(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 1)
    throw new Error(`${name} must be a positive integer, got "${raw}"`);
  return value;
}

const log = (msg: string): void => console.log(`[ensure-topic] ${msg}`);
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Connects and lists topics, retrying until the deadline. Returns the admin client and the topic list. */
async function waitForBroker(kafka: Kafka, waitSeconds: number): Promise<{ admin: Admin; topics: string[] }> {
  const deadline = Date.now() + waitSeconds * 1000;
  let attempt = 0;
  let lastError = '';
  for (;;) {
    attempt++;
    const admin = kafka.admin();
    try {
      await admin.connect();
      const topics = await admin.listTopics();
      return { admin, topics };
    } catch (err) {
      lastError = err instanceof Error ? err.message : String(err);
      await admin.disconnect().catch(() => undefined);
    }
    if (Date.now() >= deadline) {
      throw new Error(`broker did not answer after ${attempt} attempt(s) in ${waitSeconds}s: ${lastError}`);
    }
    await sleep(1000);
  }
}

async function main(): Promise<void> {
  const opts = parseArgs(process.argv.slice(2));
  const brokers = (process.env.KAFKA_BROKERS || '127.0.0.1:9092')
    .split(',')
    .map((b) => b.trim())
    .filter(Boolean);
  const topic = process.env.KAFKA_TOPIC || 'flaglens.events';
  const partitions = positiveInt('KAFKA_PARTITIONS', 6);
  const replicationFactor = positiveInt('KAFKA_REPLICATION_FACTOR', 1);

  const kafka = new Kafka({
    clientId: 'flaglens-ensure-topic',
    brokers,
    connectionTimeout: 3000,
    requestTimeout: 10000,
    // Our own loop retries the connection; keep kafkajs quiet and its own retries short.
    retry: { retries: 3, initialRetryTime: 200, maxRetryTime: 1000 },
    logLevel: logLevel.NOTHING,
    // TLS and SASL of the environment (KAFKA_SSL*, KAFKA_SASL*), as every other client
    ...kafkaSecurityFromEnv(),
  });

  const started = Date.now();
  const { admin, topics } = await waitForBroker(kafka, opts.waitSeconds);
  try {
    log(`broker ${brokers.join(',')} answers (${Date.now() - started} ms, ${topics.length} topic(s))`);
    if (opts.waitOnly) return;

    if (!topics.includes(topic)) {
      const created = await createTopicWithLeaders(admin, {
        topic,
        numPartitions: partitions,
        replicationFactor,
        configEntries: Object.entries(EXPECTED_CONFIG).map(([name, value]) => ({ name, value })),
      });
      // createTopics returns false if the topic appeared in the meantime (another caller): still fine.
      log(
        created
          ? `created topic ${topic} (${partitions} partitions, replication ${replicationFactor}, ` +
              `retention.ms=-1, max.message.bytes=${MAX_MESSAGE_BYTES})`
          : `topic ${topic} already exists (created concurrently)`,
      );
      return;
    }

    // Existing topic: report, never alter (someone may have changed it on purpose).
    const metadata = await admin.fetchTopicMetadata({ topics: [topic] });
    const actualPartitions = metadata.topics[0]?.partitions.length ?? 0;
    const described = await admin.describeConfigs({
      includeSynonyms: false,
      resources: [
        { type: ConfigResourceTypes.TOPIC, name: topic, configNames: Object.keys(EXPECTED_CONFIG) },
      ],
    });
    const entries = described.resources[0]?.configEntries ?? [];
    const actual = Object.fromEntries(entries.map((e) => [e.configName, e.configValue]));
    log(
      `topic ${topic} already exists (${actualPartitions} partitions, ` +
        Object.keys(EXPECTED_CONFIG)
          .map((k) => `${k}=${actual[k]}`)
          .join(', ') +
        ')',
    );
    if (actualPartitions !== partitions) {
      log(
        `WARNING: topic has ${actualPartitions} partitions, KAFKA_PARTITIONS is ${partitions} (left as is)`,
      );
    }
    for (const [name, expected] of Object.entries(EXPECTED_CONFIG)) {
      if (actual[name] !== expected) {
        log(`WARNING: ${name}=${actual[name]} on ${topic}, expected ${expected} (left as is)`);
      }
    }
  } finally {
    await admin.disconnect().catch(() => undefined);
  }
}

main().catch((err: unknown) => {
  console.error(`[ensure-topic] ERROR: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
});
