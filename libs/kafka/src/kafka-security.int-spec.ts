import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadConfig } from '@flaglens/config';
import { startLocalKafka, type LocalKafka } from '@flaglens/testing/support/local-kafka';
import { freePort } from '@flaglens/testing/support/http';
import { runCli } from '@flaglens/testing/support/cli';
import { createTestDatabase, type TestDatabase } from '@flaglens/testing/support/test-database';
import { createKafka } from './kafka-client';
import { kafkaSecurity } from './kafka-security';

const ROOT = join(__dirname, '..', '..', '..');
const DIR = join(ROOT, '.run', 'test-kafka-sasl-ssl');
const TLS = join(DIR, 'tls');
const STOREPASS = 'changeit-store';

const USERS = {
  plain: { username: 'alice', password: 'alice-secret' },
  'scram-sha-256': { username: 'bob', password: 'bob-secret-256' },
  'scram-sha-512': { username: 'carol', password: 'carol-secret-512' },
} as const;

function run(cmd: string, args: string[]): void {
  execFileSync(cmd, args, { cwd: TLS, stdio: ['ignore', 'ignore', 'pipe'] });
}

/**
 * A CA (openssl), the broker's key store signed by it and its trust store (keytool), and a client
 * certificate and key signed by the same CA: the broker asks for the client's certificate (mutual TLS).
 */
function makeCertificates(): void {
  mkdirSync(TLS, { recursive: true });
  const sign = (name: string, subject: string, ext?: string) => {
    run('openssl', [
      'req',
      '-new',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-keyout',
      `${name}.key`,
      '-out',
      `${name}.csr`,
      '-subj',
      subject,
    ]);
    if (ext) writeFileSync(join(TLS, `${name}.ext`), ext);
    run('openssl', [
      'x509',
      '-req',
      '-in',
      `${name}.csr`,
      '-CA',
      'ca.crt',
      '-CAkey',
      'ca.key',
      '-CAcreateserial',
      '-out',
      `${name}.crt`,
      '-days',
      '2',
      '-sha256',
      ...(ext ? ['-extfile', `${name}.ext`] : []),
    ]);
  };
  run('openssl', [
    'req',
    '-x509',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-keyout',
    'ca.key',
    '-out',
    'ca.crt',
    '-days',
    '2',
    '-subj',
    '/CN=flaglens-test-ca',
  ]);
  sign('broker', '/CN=localhost', 'subjectAltName=DNS:localhost,IP:127.0.0.1\n');
  sign('client', '/CN=flaglens-client');
  run('openssl', [
    'pkcs12',
    '-export',
    '-in',
    'broker.crt',
    '-inkey',
    'broker.key',
    '-certfile',
    'ca.crt',
    '-name',
    'broker',
    '-out',
    'broker.p12',
    '-passout',
    `pass:${STOREPASS}`,
  ]);
  run('keytool', [
    '-importcert',
    '-noprompt',
    '-alias',
    'ca',
    '-file',
    'ca.crt',
    '-keystore',
    'truststore.p12',
    '-storetype',
    'PKCS12',
    '-storepass',
    STOREPASS,
  ]);
}

/**
 * Every mechanism flaglens supports against a broker of its own with a SASL_SSL listener (SCRAM users added
 * when its storage is formatted), configured only through the environment variables the apps read.
 */
describe('secured Kafka: TLS (CA, client certificate) and SASL PLAIN / SCRAM-SHA-256 / SCRAM-SHA-512', () => {
  let broker: LocalKafka;
  let secured: string;
  let db: TestDatabase;

  beforeAll(async () => {
    rmSync(DIR, { recursive: true, force: true });
    makeCertificates();
    const port = await freePort();
    secured = `localhost:${port}`;
    const props = join(DIR, 'sasl-ssl.properties');
    writeFileSync(
      props,
      [
        'sasl.enabled.mechanisms=PLAIN,SCRAM-SHA-256,SCRAM-SHA-512',
        `listener.name.sasl_ssl.plain.sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required user_${USERS.plain.username}="${USERS.plain.password}";`,
        'listener.name.sasl_ssl.scram-sha-256.sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required;',
        'listener.name.sasl_ssl.scram-sha-512.sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required;',
        `ssl.keystore.location=${join(TLS, 'broker.p12')}`,
        'ssl.keystore.type=PKCS12',
        `ssl.keystore.password=${STOREPASS}`,
        `ssl.key.password=${STOREPASS}`,
        `ssl.truststore.location=${join(TLS, 'truststore.p12')}`,
        'ssl.truststore.type=PKCS12',
        `ssl.truststore.password=${STOREPASS}`,
        'ssl.client.auth=required',
        '',
      ].join('\n'),
    );
    const s256 = USERS['scram-sha-256'];
    const s512 = USERS['scram-sha-512'];
    broker = await startLocalKafka(join(DIR, 'kafka'), {
      heap: '-Xms128m -Xmx384m',
      env: {
        KAFKA_EXTRA_LISTENER: `SASL_SSL://localhost:${port}`,
        KAFKA_EXTRA_PROPERTIES: props,
        KAFKA_FORMAT_ARGS:
          `--add-scram SCRAM-SHA-256=[name=${s256.username},password=${s256.password}] ` +
          `--add-scram SCRAM-SHA-512=[name=${s512.username},password=${s512.password}]`,
      },
    });
    db = await createTestDatabase('sasl');
  });

  afterAll(async () => {
    await db?.drop();
    await broker?.stop();
    rmSync(DIR, { recursive: true, force: true });
  });

  const env = (mechanism: keyof typeof USERS, password: string = USERS[mechanism].password) => ({
    KAFKA_BROKERS: secured,
    KAFKA_SSL_CA_FILE: join(TLS, 'ca.crt'),
    KAFKA_SSL_CERT_FILE: join(TLS, 'client.crt'),
    KAFKA_SSL_KEY_FILE: join(TLS, 'client.key'),
    KAFKA_SASL_MECHANISM: mechanism,
    KAFKA_SASL_USERNAME: USERS[mechanism].username,
    KAFKA_SASL_PASSWORD: password,
  });

  it.each(Object.keys(USERS) as (keyof typeof USERS)[])(
    '%s: a producer and a consumer group work over SASL_SSL',
    async (mechanism) => {
      const config = loadConfig(env(mechanism));
      const kafka = createKafka({
        brokers: config.KAFKA_BROKERS,
        clientId: 'sasl-test',
        security: kafkaSecurity(config),
        log: () => undefined,
      });
      const topic = `flaglens.test.sasl.${mechanism}`;
      const admin = kafka.admin();
      await admin.connect();
      await admin.createTopics({ waitForLeaders: true, topics: [{ topic, numPartitions: 1 }] });
      await admin.disconnect();
      const producer = kafka.producer();
      await producer.connect();
      await producer.send({ topic, messages: [{ key: 'k', value: `hello ${mechanism}` }], acks: -1 });
      await producer.disconnect();
      const consumer = kafka.consumer({ groupId: `sasl-${mechanism}` });
      await consumer.connect();
      await consumer.subscribe({ topic, fromBeginning: true });
      const got = await new Promise<string>((resolve) => {
        void consumer.run({ eachMessage: async ({ message }) => resolve(String(message.value)) });
      });
      await consumer.disconnect();
      expect(got).toBe(`hello ${mechanism}`);
    },
  );

  it('the CLI (status) reads the same variables: it reaches the topic over SASL_SSL with SCRAM-SHA-512', async () => {
    // (status exits non-zero when no projector is in the group: its report on stdout is what counts here)
    const { stdout } = await runCli(
      { ...env('scram-sha-512'), DATABASE_URL: db.url, KAFKA_TOPIC: 'flaglens.events' },
      ['status', '--json'],
    ).catch((e: { stdout: string; stderr: string }) => e);
    const report = JSON.parse(stdout) as { partitions: unknown[] };
    expect(report.partitions).toHaveLength(6);
  });

  it('a wrong password: one clear line naming the failed authentication, no retry storm', async () => {
    const started = Date.now();
    const failure = await runCli(
      { ...env('scram-sha-256', 'not-the-password'), DATABASE_URL: db.url, KAFKA_TOPIC: 'flaglens.events' },
      ['status', '--json'],
    ).then(
      () => undefined,
      (e: { code: number; stdout: string; stderr: string }) => e,
    );
    expect(failure).toBeDefined();
    expect(failure!.code).not.toBe(0);
    const lines = failure!.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/authentication failed/i);
    expect(lines[0]).not.toContain('not-the-password');
    // no retries: ten with a backoff of up to 10 s would take well over a minute (the bound is loose because
    // starting the CLI with ts-node takes seconds on a busy machine)
    expect(Date.now() - started).toBeLessThan(60_000);
  });

  it('a wrong password is a non-retriable authentication error of the client (no retries)', async () => {
    const config = loadConfig(env('plain', 'wrong'));
    const kafka = createKafka({
      brokers: config.KAFKA_BROKERS,
      clientId: 'sasl-test',
      security: kafkaSecurity(config),
      retries: 0,
      log: () => undefined,
    });
    const admin = kafka.admin();
    await expect(admin.connect()).rejects.toThrow(/authentication failed/i);
  });
});
