import 'reflect-metadata';
import { ParseResult, parseEvent } from './parse-event';

const REGISTER = {
  id: 102,
  type: 'client-register',
  createdBy: 'default-dev-client',
  createdAt: '2026-11-22T08:52:52.378Z',
  createdByUserId: null,
  data: {
    appName: 'checkout-web',
    instanceId: 'web-1',
    sdkVersion: 'unleash-client-node:6.1.0',
    strategies: ['default', 'flexibleRollout'],
    started: '2026-11-22T08:52:52.378Z',
    interval: 10000,
  },
  preData: null,
  tags: null,
  featureName: null,
  project: null,
  environment: 'development',
};

const METRICS = {
  ...REGISTER,
  id: 103,
  type: 'client-metrics',
  data: {
    appName: 'checkout-web',
    instanceId: 'web-1',
    environment: 'development',
    bucket: {
      start: '2026-11-22T08:51:52.378Z',
      stop: '2026-11-22T08:52:52.378Z',
      toggles: {
        'checkout.new-flow': { yes: 40, no: 10, variants: { 'dev-only': 40 } },
        'ops.cache-ttl': { yes: 7, no: 0 },
      },
    },
  },
};

function withData(base: typeof REGISTER | typeof METRICS, data: unknown): string {
  return JSON.stringify({ ...base, data });
}

function reason(result: ParseResult): string {
  if (result.ok) throw new Error('expected a rejection');
  expect(result.code).toBe('invalid-field');
  return result.reason;
}

describe('SDK payloads in data', () => {
  it('accepts the SDK bodies of the reference sample, with extra keys', () => {
    expect(parseEvent(JSON.stringify(REGISTER)).ok).toBe(true);
    expect(parseEvent(JSON.stringify(METRICS)).ok).toBe(true);
    expect(
      parseEvent(withData(REGISTER, { ...REGISTER.data, platformName: 'node', yggdrasilVersion: null })).ok,
    ).toBe(true);
  });

  it('needs only appName for a registration, and accepts epoch milliseconds for started', () => {
    expect(parseEvent(withData(REGISTER, { appName: 'a' })).ok).toBe(true);
    expect(parseEvent(withData(REGISTER, { appName: 'a', started: 1763801572378 })).ok).toBe(true);
    expect(parseEvent(withData(REGISTER, { appName: 'a', instanceId: null, strategies: null })).ok).toBe(
      true,
    );
  });

  it('rejects a registration without a valid body', () => {
    expect(reason(parseEvent(withData(REGISTER, null)))).toBe(
      'data: data must be an object (the SDK request body of a client-register event)',
    );
    expect(reason(parseEvent(withData(REGISTER, { instanceId: 'web-1' })))).toMatch(
      /^data: data must be a valid client-register payload \(appName: appName should not be null or undefined; /,
    );
    expect(reason(parseEvent(withData(REGISTER, { appName: 'a', strategies: 'default' })))).toContain(
      'strategies:',
    );
    expect(reason(parseEvent(withData(REGISTER, { appName: 'a', started: 'yesterday' })))).toContain(
      'started: started must be an RFC 3339 date-time with a time zone',
    );
    expect(reason(parseEvent(withData(REGISTER, { appName: 'a', interval: -1 })))).toContain(
      'interval: interval must not be less than 0',
    );
  });

  it('rejects metrics with negative, fractional or missing counts', () => {
    const bucket = METRICS.data.bucket;
    const metrics = (toggles: unknown) =>
      withData(METRICS, { ...METRICS.data, bucket: { ...bucket, toggles } });
    expect(reason(parseEvent(metrics({ a: { yes: -1, no: 0 } })))).toBe(
      'data: data must be a valid client-metrics payload (bucket.toggles.a.yes: yes must not be less than 0)',
    );
    expect(reason(parseEvent(metrics({ a: { yes: 1.5, no: 0 } })))).toContain(
      'bucket.toggles.a.yes: yes must be an integer number',
    );
    expect(reason(parseEvent(metrics({ a: { yes: 1 } })))).toContain(
      'bucket.toggles.a.no: no should not be null or undefined',
    );
    expect(reason(parseEvent(metrics({ a: { yes: 1, no: 1, variants: { x: -2 } } })))).toContain(
      'bucket.toggles.a.variants: variants must be an object whose values are integers >= 0',
    );
    expect(reason(parseEvent(metrics({ a: [{ yes: 1, no: 1 }] })))).toContain(
      'each value of toggles must be an object',
    );
    expect(reason(parseEvent(metrics([])))).toContain('toggles must be an object');
  });

  it('rejects metrics without a bucket or with a bad window', () => {
    expect(reason(parseEvent(withData(METRICS, { appName: 'a' })))).toContain(
      'bucket: bucket should not be null or undefined',
    );
    const bucket = { ...METRICS.data.bucket, start: '2026-11-22 08:51:52' };
    expect(reason(parseEvent(withData(METRICS, { ...METRICS.data, bucket })))).toContain(
      'bucket.start: start must be',
    );
  });

  it('leaves data of other types alone', () => {
    expect(
      parseEvent(JSON.stringify({ ...METRICS, type: 'application-created', data: { appName: 5 } })).ok,
    ).toBe(true);
  });
});
