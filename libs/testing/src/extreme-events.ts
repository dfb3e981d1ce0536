import fc from 'fast-check';
import { MAX_EVENT_DEPTH, MAX_TEXT_LENGTH } from '@flaglens/contract/event-limits';
import { EVENT_TYPES } from '@flaglens/contract/event-types';
import { isWellFormedText } from '@flaglens/contract/well-formed-text.validator';

/**
 * Events that pass (or nearly pass) the contract with extreme values: names of every Unicode plane and of the
 * longest allowed length, data nested to the depth limit, large arrays and strings, huge counts, id lists of
 * tens of thousands, thousands of tags and SDK toggles. For property tests of the whole path: whatever they
 * hold, no partition may stop and the projector may not crash.
 */

/** A name: 1 to 255 code units of any plane, well-formed, without U+0000 (stored as text); often the longest. */
export const extremeName: fc.Arbitrary<string> = fc
  .oneof(
    fc.string({ unit: 'binary', minLength: 1, maxLength: 40 }),
    fc.string({ unit: 'binary', minLength: 120, maxLength: 127 }).map((s) => s.repeat(2)),
    fc.constantFrom('x'.repeat(MAX_TEXT_LENGTH), '😀'.repeat(127), 'default', '𝔘𝔫𝔩𝔢𝔞𝔰𝔥', 'a b', '..'),
  )
  .map((s) => s.split('\u0000').join('_').slice(0, MAX_TEXT_LENGTH))
  .filter((s) => s.length >= 1 && isWellFormedText(s));

/** Any JSON value, some of them very large (up to ~300 kB). */
const bigValue: fc.Arbitrary<unknown> = fc.oneof(
  { arbitrary: fc.jsonValue({ maxDepth: 3 }), weight: 6 },
  { arbitrary: fc.string({ unit: 'binary', maxLength: 2000 }), weight: 2 },
  {
    arbitrary: fc.integer({ min: 1000, max: 20_000 }).map((n) => Array.from({ length: n }, (_, i) => i)),
    weight: 1,
  },
  {
    arbitrary: fc.constantFrom('x'.repeat(100_000), Number.MAX_SAFE_INTEGER, -Number.MAX_VALUE, 1e308),
    weight: 1,
  },
);

/** An object nested `levels` deep under keys of any length. */
function nested(levels: number, leaf: unknown, key: string): Record<string, unknown> {
  let o: Record<string, unknown> = { [key]: leaf };
  for (let i = 1; i < levels; i++) o = { [key]: o };
  return o;
}

/** `data` / `preData`: ordinary, huge, or nested as deep as the contract allows (data is level 2 of 64). */
const extremeData: fc.Arbitrary<Record<string, unknown> | null> = fc.oneof(
  {
    arbitrary: fc.dictionary(fc.string({ unit: 'binary', maxLength: 300 }), bigValue, { maxKeys: 6 }),
    weight: 6,
  },
  {
    arbitrary: fc
      .tuple(
        // data is level 2 and a leaf may nest 3 more: up to the limit, not past it
        fc.integer({ min: 1, max: MAX_EVENT_DEPTH - 5 }),
        bigValue,
        fc.string({ unit: 'binary', maxLength: 1000 }),
      )
      .map(([levels, leaf, key]) => nested(levels, leaf, key)),
    weight: 3,
  },
  { arbitrary: fc.constant(null), weight: 1 },
);

const ids = (n: number) => Array.from({ length: n }, (_, i) => (i * 7919) % 1_000_003);

/** Payloads the projections read field by field, with extreme values where they look. */
function payloadFor(type: string): fc.Arbitrary<Record<string, unknown> | null> {
  switch (type) {
    case 'project-created':
    case 'project-updated':
      return fc.record({
        id: extremeName,
        name: fc.string({ unit: 'binary', maxLength: 5000 }),
        mode: fc.constantFrom('open', 'protected', 'private', 'x'.repeat(1000)),
        featureLimit: fc.oneof(fc.integer(), fc.constant(Number.MAX_SAFE_INTEGER), fc.constant(1e300)),
        environments: fc.array(extremeName, { maxLength: 50 }),
      });
    case 'user-created':
    case 'user-updated':
      return fc.record({
        id: fc.oneof(
          fc.integer(),
          fc.constant(Number.MAX_SAFE_INTEGER),
          fc.constant(-Number.MAX_SAFE_INTEGER),
        ),
        email: fc.string({ unit: 'binary', maxLength: 3000 }),
        username: fc.string({ unit: 'binary', maxLength: 3000 }),
        rootRole: fc.oneof(fc.integer(), fc.constant(Number.MAX_SAFE_INTEGER)),
      });
    case 'group-created':
    case 'group-updated':
      return fc.record({
        id: fc.integer({ min: 1 }),
        name: fc.string({ unit: 'binary', maxLength: 3000 }),
        users: fc.integer({ min: 0, max: 30_000 }).map(ids),
      });
    case 'project-access-added':
      return fc
        .integer({ min: 0, max: 40_000 })
        .map((n) => ({ roles: [{ roleId: 5, userIds: ids(n), groupIds: ids(10) }] }));
    case 'feature-created':
    case 'feature-metadata-updated':
      return fc.record({
        name: extremeName,
        type: fc.constantFrom('release', 'experiment', 'kill-switch', 'x'.repeat(2000)),
        stale: fc.boolean(),
        createdAt: fc.constantFrom('1000-01-01T00:00:00Z', '2999-12-31T23:59:59Z', 'not a date'),
      });
    case 'feature-project-change':
      return fc.record({ oldProject: extremeName, newProject: extremeName });
    case 'feature-type-updated':
      return fc.record({ id: extremeName, lifetimeDays: fc.oneof(fc.integer(), fc.constant(1e12)) });
    case 'environment-created':
    case 'environment-updated':
      return fc.record({
        name: extremeName,
        type: extremeName,
        sortOrder: fc.oneof(fc.integer(), fc.constant(1e15)),
      });
    default:
      return extremeData;
  }
}

/** SDK metrics with thousands of toggles named up to 255 characters and counts up to 2^53 - 1. */
const extremeMetrics: fc.Arbitrary<Record<string, unknown>> = fc
  .tuple(
    extremeName,
    fc.array(extremeName, { maxLength: 2000 }),
    fc.constantFrom(0, 1, 1000, Number.MAX_SAFE_INTEGER),
  )
  .map(([appName, names, count]) => ({
    appName,
    environment: 'production',
    bucket: {
      start: '2026-01-01T00:00:00Z',
      stop: '2026-01-01T00:01:00Z',
      toggles: Object.fromEntries(names.map((n) => [n, { yes: count, no: count, variants: { [n]: count } }])),
    },
  }));

/** One extreme event; ids sometimes collide (a producer re-sends). */
export const extremeEvent: fc.Arbitrary<Record<string, unknown>> = fc
  .constantFrom(...EVENT_TYPES)
  .chain((type) =>
    fc.record({
      id: fc.oneof(
        fc.integer({ min: 1, max: 5000 }),
        fc.constant(Number.MAX_SAFE_INTEGER),
        fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER }),
      ),
      createdAt: fc
        .date({
          min: new Date('1000-01-01T00:00:00Z'),
          max: new Date('2999-12-31T23:59:59Z'),
          noInvalidDate: true,
        })
        .map((d) => d.toISOString()),
      type: fc.constant(type),
      createdBy: extremeName,
      createdByUserId: fc.oneof(fc.integer(), fc.constant(null), fc.constant(Number.MAX_SAFE_INTEGER)),
      environment: fc.option(extremeName, { nil: null }),
      project: fc.option(extremeName, { nil: null }),
      featureName: fc.option(extremeName, { nil: null }),
      data:
        type === 'client-metrics'
          ? extremeMetrics
          : type === 'client-register'
            ? fc.record({ appName: extremeName })
            : payloadFor(type),
      preData: extremeData,
      tags: fc.option(
        fc.integer({ min: 0, max: 1000 }).map((n) =>
          Array.from({ length: n }, (_, i) => ({
            value: `v${i}-${'𝔘'.repeat(20)}`,
            type: 'simple',
          })),
        ),
        { nil: null },
      ),
    }),
  );
