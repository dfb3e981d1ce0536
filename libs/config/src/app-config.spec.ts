import { ConfigError, loadConfig, redactUrl } from './app-config';

describe('loadConfig', () => {
  it('gives the documented defaults for an empty environment', () => {
    const c = loadConfig({});
    expect(c.DATABASE_URL).toBe('postgres://postgres@127.0.0.1:5432/flaglens');
    expect(c.KAFKA_BROKERS).toBe('127.0.0.1:9092');
    expect(c.KAFKA_TOPIC).toBe('flaglens.events');
    expect(c.KAFKA_GROUP_ID).toBe('flaglens-projector');
    expect(c.PORT).toBe(4242);
    expect(c.ACCEPT_UNKNOWN_EVENT_TYPES).toBe(false);
    expect(c.CONNECTOR_PORT).toBe(4244);
    expect(c.UNLEASH_DATABASE_URL).toBeUndefined();
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
      ACCEPT_UNKNOWN_EVENT_TYPES: 'true',
      FLAGLENS_CLOCK: '2026-11-22T09:01:00Z',
    });
    expect(c.PORT).toBe(8080);
    expect(c.ACCEPT_UNKNOWN_EVENT_TYPES).toBe(true);
    expect(c.FLAGLENS_CLOCK).toBe('2026-11-22T09:01:00Z');
  });

  it.each([
    ['PORT', 'eighty'],
    ['PORT', '70000'],
    ['KAFKA_BROKERS', 'localhost'],
    ['DATABASE_URL', 'mysql://x'],
    ['FLAGLENS_CLOCK', 'yesterday'],
    ['KAFKA_TOPIC', 'bad topic'],
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
});
