import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AppConfig, ConfigError, kafkaTlsEnabled, loadConfig, redactUrl } from './app-config';

describe('loadConfig', () => {
  it('gives the documented defaults for an empty environment', () => {
    const c = loadConfig({});
    expect(c.DATABASE_URL).toBe('postgres://postgres@127.0.0.1:5432/flaglens');
    expect(c.KAFKA_BROKERS).toBe('127.0.0.1:9092');
    expect(c.KAFKA_TOPIC).toBe('flaglens.events');
    expect(c.KAFKA_GROUP_ID).toBe('flaglens-projector');
    expect(c.PORT).toBe(4242);
    expect(c.ACCEPT_UNKNOWN_EVENT_TYPES).toBe(true);
    expect(c.CONNECTOR_PORT).toBe(4244);
    expect(c.UNLEASH_DATABASE_URL).toBeUndefined();
    expect([c.PROJECTOR_HOST, c.CONNECTOR_HOST]).toEqual(['127.0.0.1', '127.0.0.1']);
    expect(c.AS_OF_CHECKPOINT_EVENTS).toBe(500);
  });

  it('the projector and connector bind addresses: an IP or a host name', () => {
    expect(loadConfig({ PROJECTOR_HOST: '::', CONNECTOR_HOST: '0.0.0.0' })).toMatchObject({
      PROJECTOR_HOST: '::',
      CONNECTOR_HOST: '0.0.0.0',
    });
    expect(() => loadConfig({ PROJECTOR_HOST: 'http://x' })).toThrow(/PROJECTOR_HOST=/);
  });

  it('the source connector: its port and Unleash URLs are checked; a bad token or URL is not echoed', () => {
    const c = loadConfig({ CONNECTOR_PORT: '5000', UNLEASH_DATABASE_URL: 'postgres://ro:pw@unleash/db' });
    expect([c.CONNECTOR_PORT, c.UNLEASH_DATABASE_URL]).toEqual([5000, 'postgres://ro:pw@unleash/db']);
    let err: ConfigError | undefined;
    try {
      loadConfig({ UNLEASH_DATABASE_URL: 'mysql://ro:hunter2@x/db', UNLEASH_API_TOKEN: 'has space secret' });
    } catch (e) {
      err = e as ConfigError;
    }
    expect(err?.problems.map((p) => p.split('=')[0]).sort()).toEqual([
      'UNLEASH_API_TOKEN',
      'UNLEASH_DATABASE_URL',
    ]);
    expect(err?.message).not.toContain('hunter2');
    expect(err?.message).not.toContain('secret');
  });

  it('EVENT_FORMAT: unleash by default, debezium on demand, anything else stops the start', () => {
    expect(loadConfig({}).EVENT_FORMAT).toBe('unleash');
    expect(loadConfig({ EVENT_FORMAT: 'debezium' }).EVENT_FORMAT).toBe('debezium');
    expect(() => loadConfig({ EVENT_FORMAT: 'avro' })).toThrow(
      /EVENT_FORMAT="avro": must be unleash or debezium/,
    );
  });

  it('parses numbers and booleans from strings', () => {
    const c = loadConfig({
      PORT: '8080',
      ACCEPT_UNKNOWN_EVENT_TYPES: 'false',
      FLAGLENS_CLOCK: '2026-11-22T09:01:00Z',
    });
    expect(c.PORT).toBe(8080);
    expect(c.ACCEPT_UNKNOWN_EVENT_TYPES).toBe(false);
    expect(c.FLAGLENS_CLOCK).toBe('2026-11-22T09:01:00Z');
  });

  it.each([
    ['PORT', 'eighty'],
    ['PORT', '70000'],
    ['KAFKA_BROKERS', 'localhost'],
    ['DATABASE_URL', 'mysql://x'],
    ['FLAGLENS_CLOCK', 'yesterday'],
    ['KAFKA_TOPIC', 'bad topic'],
    ['AS_OF_CHECKPOINT_EVENTS', '-1'],
    ['AS_OF_CHECKPOINT_EVENTS', 'often'],
  ])('rejects %s=%s with a message naming the variable', (name, value) => {
    expect(() => loadConfig({ [name]: value })).toThrow(ConfigError);
    expect(() => loadConfig({ [name]: value })).toThrow(new RegExp(`${name}=`));
  });

  it('never prints a database password', () => {
    expect(redactUrl('postgres://u:secret@h:5432/db')).toBe('postgres://u:***@h:5432/db');
    try {
      loadConfig({ DATABASE_URL: 'postgres://u:secret@h:5432/db', PORT: 'x' });
    } catch (e) {
      expect(String(e)).not.toContain('secret');
    }
  });

  describe('Kafka security (TLS, SASL)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'flaglens-config-'));
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 1024 });
    const key = join(dir, 'client.key');
    writeFileSync(key, privateKey.export({ type: 'pkcs8', format: 'pem' }));
    const notPem = join(dir, 'ca.crt');
    writeFileSync(notPem, 'hello');
    afterAll(() => rmSync(dir, { recursive: true, force: true }));
    const problems = (env: NodeJS.ProcessEnv): string[] => {
      try {
        loadConfig(env);
        return [];
      } catch (e) {
        return (e as ConfigError).problems;
      }
    };

    it('plaintext by default; TLS on with KAFKA_SSL=true or a KAFKA_SSL_*_FILE', () => {
      expect(kafkaTlsEnabled(loadConfig({}))).toBe(false);
      expect(kafkaTlsEnabled(loadConfig({ KAFKA_SSL: 'true' }))).toBe(true);
      expect(kafkaTlsEnabled(Object.assign(new AppConfig(), { KAFKA_SSL_CA_FILE: '/ca.crt' }))).toBe(true);
    });

    it('SASL needs a mechanism, a user name and a password; the password is never echoed', () => {
      expect(problems({ KAFKA_SASL_MECHANISM: 'scram-sha-256', KAFKA_SASL_USERNAME: 'u' })).toEqual([
        'KAFKA_SASL_PASSWORD: required with KAFKA_SASL_MECHANISM=scram-sha-256',
      ]);
      expect(problems({ KAFKA_SASL_USERNAME: 'u', KAFKA_SASL_PASSWORD: 'hunter2' })[0]).toMatch(
        /^KAFKA_SASL_MECHANISM: required/,
      );
      const bad = problems({
        KAFKA_SASL_MECHANISM: 'gssapi',
        KAFKA_SASL_USERNAME: 'u',
        KAFKA_SASL_PASSWORD: 'hunter2',
      });
      expect(bad).toHaveLength(1);
      expect(bad[0]).toMatch(/^KAFKA_SASL_MECHANISM="gssapi"/);
      expect(bad.join()).not.toContain('hunter2');
      expect(
        loadConfig({ KAFKA_SASL_MECHANISM: 'plain', KAFKA_SASL_USERNAME: 'u', KAFKA_SASL_PASSWORD: 'p' })
          .KAFKA_SASL_MECHANISM,
      ).toBe('plain');
    });

    it('the files must exist and be PEM; a certificate needs its key; a wrong key passphrase fails', () => {
      expect(problems({ KAFKA_SSL_CA_FILE: join(dir, 'missing.crt') })).toEqual([
        `KAFKA_SSL_CA_FILE=${JSON.stringify(join(dir, 'missing.crt'))}: cannot be read (ENOENT)`,
      ]);
      expect(problems({ KAFKA_SSL_CA_FILE: notPem })[0]).toMatch(/not a readable PEM certificate/);
      expect(problems({ KAFKA_SSL_CERT_FILE: notPem })).toContain(
        'KAFKA_SSL_CERT_FILE and KAFKA_SSL_KEY_FILE: set both (mutual TLS) or neither',
      );
      expect(problems({ KAFKA_SSL_KEY_FILE: key, KAFKA_SSL_CERT_FILE: notPem })).toHaveLength(1);
      expect(problems({ KAFKA_SSL: 'false', KAFKA_SSL_CA_FILE: notPem })[0]).toMatch(
        /^KAFKA_SSL=false: contradicts/,
      );
      const encrypted = join(dir, 'encrypted.key');
      writeFileSync(
        encrypted,
        privateKey.export({ type: 'pkcs8', format: 'pem', cipher: 'aes-256-cbc', passphrase: 'right' }),
      );
      const withCert = { KAFKA_SSL_CERT_FILE: notPem, KAFKA_SSL_KEY_FILE: encrypted };
      expect(problems({ ...withCert, KAFKA_SSL_KEY_PASSWORD: 'wrong' }).join()).toMatch(
        /KAFKA_SSL_KEY_FILE=.*wrong KAFKA_SSL_KEY_PASSWORD/,
      );
      expect(problems({ ...withCert, KAFKA_SSL_KEY_PASSWORD: 'right' }).join()).not.toMatch(
        /KAFKA_SSL_KEY_FILE/,
      );
    });
  });
});
