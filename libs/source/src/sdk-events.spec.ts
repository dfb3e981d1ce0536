import fc from 'fast-check';
import { parseEvent } from '@flaglens/contract';
import { bucketEvent, instanceEvent, lastSeenEvent, sdkEventId, SDK_ID_BASE, usageEvent } from './sdk-events';

describe('SDK usage events', () => {
  it('ids are a function of the identity, in [2^52, 2^53)', () => {
    fc.assert(
      fc.property(fc.array(fc.string(), { minLength: 1, maxLength: 4 }), (identity) => {
        const id = sdkEventId(...identity);
        expect(id).toBe(sdkEventId(...identity));
        expect(id).toBeGreaterThanOrEqual(SDK_ID_BASE);
        expect(id).toBeLessThan(2 * SDK_ID_BASE);
        expect(Number.isSafeInteger(id)).toBe(true);
      }),
    );
    // the parts are kept apart: ("ab","c") is not ("a","bc")
    expect(sdkEventId('ab', 'c')).not.toBe(sdkEventId('a', 'bc'));
  });

  it('the same bucket read twice is the same event id, whatever its counts; another bucket is another id', () => {
    const b = (yes: number, start = '2026-11-22T08:00:00.000Z') =>
      bucketEvent({
        kind: 'hour',
        app: 'web',
        environment: 'production',
        start,
        stop: '2026-11-22T09:00:00.000Z',
        rows: [{ feature: 'f', yes, no: 1, variants: { a: yes } }],
      });
    expect(b(1).id).toBe(b(5).id);
    expect(b(1).id).not.toBe(b(1, '2026-11-22T09:00:00.000Z').id);
  });

  it('every kind is a valid contract event, with no event-level project, flag or environment', () => {
    const events = [
      lastSeenEvent({ feature: 'f', environment: 'development', lastSeenAt: '2026-11-22T08:52:52.378Z' }),
      usageEvent({
        app: 'web',
        project: 'p',
        environment: 'development',
        seenAt: '2026-11-22T08:52:52.378Z',
      }),
      instanceEvent({
        app: 'web',
        instanceId: 'i-1',
        environment: 'development',
        sdkVersion: 'unleash-client-node:6.1.0',
        strategies: ['default'],
        createdAt: '2026-11-22T08:52:52.378Z',
      }),
      bucketEvent({
        kind: 'day',
        app: 'web',
        environment: 'production',
        start: '2026-11-21T00:00:00.000Z',
        stop: '2026-11-22T00:00:00.000Z',
        rows: [
          { feature: 'b', yes: 3, no: 0 },
          { feature: 'a', yes: 1, no: 2, variants: { x: 1 } },
        ],
      }),
    ];
    for (const e of events) {
      const parsed = parseEvent(JSON.stringify(e));
      expect(parsed).toMatchObject({ ok: true });
      expect([e.project, e.featureName, e.environment]).toEqual([null, null, null]);
    }
    expect(events[1].data).toEqual({ appName: 'web', environment: 'development', project: 'p' });
    expect(Object.keys((events[3].data.bucket as { toggles: object }).toggles)).toEqual(['a', 'b']);
  });
});
