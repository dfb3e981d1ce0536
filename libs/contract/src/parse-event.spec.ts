import 'reflect-metadata';
import fc from 'fast-check';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DEFAULT_MAX_EVENT_BYTES } from './event-limits';
import { EVENT_TYPES } from './event-types';
import {
  bracketsAtMost,
  DEAD_LETTER_CODES,
  DeadLetterCode,
  jsonDepthBeyond,
  ParseResult,
  parseEvent,
} from './parse-event';

const SAMPLE_LINES = readFileSync(
  join(__dirname, '..', 'test-fixtures', 'reference-sample-events.ndjson'),
  'utf8',
)
  .split('\n')
  .filter((l) => l.trim() !== '');

const VALID = {
  id: 42,
  type: 'feature-created',
  createdBy: 'alice@example.com',
  createdAt: '2026-11-22T08:52:03.265Z',
  createdByUserId: 2,
  data: { name: 'checkout.new-flow', type: 'release' },
  preData: null,
  tags: [{ value: 'checkout', type: 'team' }],
  featureName: 'checkout.new-flow',
  project: 'default',
  environment: null,
};

function json(changes: Record<string, unknown> = {}, remove: string[] = []): string {
  const e: Record<string, unknown> = { ...VALID, ...changes };
  for (const k of remove) delete e[k];
  return JSON.stringify(e);
}

function expectFailure(result: ParseResult, code: DeadLetterCode): string {
  if (result.ok) throw new Error(`expected ${code}, got an accepted event`);
  expect(result.code).toBe(code);
  return result.reason;
}

function expectOk(result: ParseResult) {
  if (!result.ok) throw new Error(`expected ok, got ${result.code}: ${result.reason}`);
  return result;
}

describe('parseEvent', () => {
  describe('the reference sample', () => {
    it('has the 105 lines of events.ndjson and sdk-events.ndjson', () => {
      expect(SAMPLE_LINES).toHaveLength(105);
      expect(SAMPLE_LINES.map((l) => (JSON.parse(l) as { id: number }).id)).toEqual(
        Array.from({ length: 105 }, (_, i) => i + 1),
      );
    });

    it.each(SAMPLE_LINES.map((line) => [(JSON.parse(line) as { id: number }).id, line]))(
      'accepts sample event %i, as a string and as a buffer, unchanged but for the key order',
      (_id, line) => {
        const fromString = expectOk(parseEvent(line as string));
        const fromBuffer = expectOk(parseEvent(Buffer.from(line as string, 'utf8')));
        expect(fromString.knownType).toBe(true);
        expect(fromBuffer).toEqual(fromString);
        // the sample is already normal (every key present, createdAt in toISOString form)
        expect(fromString.event).toEqual(JSON.parse(line as string));
      },
    );

    it('serialises accepted events in the wire key order of the reference', () => {
      for (const line of SAMPLE_LINES) expect(JSON.stringify(expectOk(parseEvent(line)).event)).toBe(line);
    });
  });

  describe('accepted events', () => {
    it('turns missing nullable keys into null', () => {
      const minimal = JSON.stringify({
        id: 1,
        createdAt: '2026-11-22T08:52:03Z',
        type: 'user-created',
        createdBy: 'x',
      });
      expect(expectOk(parseEvent(minimal)).event).toEqual({
        id: 1,
        type: 'user-created',
        createdBy: 'x',
        createdAt: '2026-11-22T08:52:03.000Z',
        createdByUserId: null,
        data: null,
        preData: null,
        tags: null,
        featureName: null,
        project: null,
        environment: null,
      });
    });

    it("keeps Unleash 7+'s groupType and groupId after the other fields, leaves them out when null", () => {
      const grouped = expectOk(
        parseEvent(json({ groupType: 'change-request', groupId: '01JZ5K8P9E' })),
      ).event;
      expect(Object.keys(grouped).slice(-3)).toEqual(['environment', 'groupType', 'groupId']);
      expect([grouped.groupType, grouped.groupId]).toEqual(['change-request', '01JZ5K8P9E']);
      const ungrouped = expectOk(parseEvent(json({ groupType: null, groupId: null }))).event;
      expect('groupType' in ungrouped || 'groupId' in ungrouped).toBe(false);
      expect(expectFailure(parseEvent(json({ groupType: '' })), 'invalid-field')).toMatch(/^groupType: /);
      expect(expectFailure(parseEvent(json({ groupId: 5 })), 'invalid-field')).toMatch(/^groupId: /);
    });

    it('normalises createdAt to toISOString (UTC, milliseconds, Z)', () => {
      const at = (createdAt: string) => expectOk(parseEvent(json({ createdAt }))).event.createdAt;
      expect(at('2026-11-22T10:22:03+01:30')).toBe('2026-11-22T08:52:03.000Z');
      expect(at('2026-11-22T08:52:03.2651239-00:00')).toBe('2026-11-22T08:52:03.265Z');
      expect(at('2024-02-29T23:59:59.9Z')).toBe('2024-02-29T23:59:59.900Z');
      expect(at('2027-01-01T00:30:00+01:00')).toBe('2026-12-31T23:30:00.000Z');
    });

    it('ignores extra top-level keys and keeps data, preData and tags exactly as parsed', () => {
      const data = { nested: { list: [1, 'two', null], createdAt: '2020-01-01' }, empty: {} };
      const tags = [{ type: 'simple', value: 'frontend', color: '#FFFFFF' }];
      const result = expectOk(
        parseEvent(json({ data, preData: { a: 1 }, tags, ip: '10.0.0.1', label: 'x' })),
      );
      expect(Object.keys(result.event)).toEqual([
        'id',
        'type',
        'createdBy',
        'createdAt',
        'createdByUserId',
        'data',
        'preData',
        'tags',
        'featureName',
        'project',
        'environment',
      ]);
      expect(result.event.data).toEqual(data);
      expect(result.event.preData).toEqual({ a: 1 });
      expect(JSON.stringify(result.event.tags)).toBe(JSON.stringify(tags));
    });

    it('accepts the limits themselves', () => {
      expectOk(parseEvent(json({ id: Number.MAX_SAFE_INTEGER })));
      expectOk(parseEvent(json({ tags: [{ value: 'ab', type: 'x'.repeat(50) }] })));
      expectOk(parseEvent(json({ tags: Array.from({ length: 1000 }, () => ({ value: 'ab', type: 'cd' })) })));
      expectOk(parseEvent(json({ createdBy: 'x'.repeat(255), featureName: 'f'.repeat(255) })));
      expectOk(parseEvent(json({ createdByUserId: -1337 })));
      expectOk(parseEvent(json({ tags: [{ value: '\u{1F600}\u{1F600}', type: 'cd' }] }))); // 2 characters, 4 code units
    });

    it('accepts a Uint8Array as well as a Buffer', () => {
      const bytes = new TextEncoder().encode(json());
      expect(expectOk(parseEvent(bytes as Buffer)).event.id).toBe(42);
    });

    it('knows every spec type', () => {
      for (const type of EVENT_TYPES) {
        const data =
          type === 'client-register' || type === 'client-metrics'
            ? { appName: 'a', bucket: { start: 0, stop: 1, toggles: {} } }
            : null;
        expect(expectOk(parseEvent(json({ type, data }))).knownType).toBe(true);
      }
    });
  });

  describe('poison messages', () => {
    it.each<[string, Buffer | string | null | undefined, DeadLetterCode]>([
      ['null value (tombstone)', null, 'empty'],
      ['undefined value', undefined, 'empty'],
      ['empty string', '', 'empty'],
      ['empty buffer', Buffer.alloc(0), 'empty'],
      ['malformed JSON', '{"id": 1,', 'malformed-json'],
      ['not JSON at all', 'hello', 'malformed-json'],
      ['whitespace only', '   ', 'malformed-json'],
      ['invalid UTF-8', Buffer.from([0x7b, 0xff, 0xfe, 0x7d]), 'malformed-json'],
      ['JSON null', 'null', 'not-an-object'],
      ['JSON array', json().replace(/^/, '[').replace(/$/, ']'), 'not-an-object'],
      ['JSON string', '"event"', 'not-an-object'],
      ['JSON number', '42', 'not-an-object'],
      ['missing id', json({}, ['id']), 'invalid-field'],
      ['id 0', json({ id: 0 }), 'invalid-field'],
      ['id 1.5', json({ id: 1.5 }), 'invalid-field'],
      ['id "1"', json({ id: '1' }), 'invalid-field'],
      ['id above 2^53 - 1', json({ id: 2 ** 53 }), 'invalid-field'],
      ['id null', json({ id: null }), 'invalid-field'],
      ['missing createdAt', json({}, ['createdAt']), 'invalid-field'],
      ['createdAt without a zone', json({ createdAt: '2026-11-22T08:52:03.265' }), 'invalid-field'],
      ['createdAt without a time', json({ createdAt: '2026-11-22' }), 'invalid-field'],
      ['createdAt "not a date"', json({ createdAt: 'not a date' }), 'invalid-field'],
      ['createdAt 29 Feb of a common year', json({ createdAt: '2026-02-29T00:00:00Z' }), 'invalid-field'],
      ['createdAt 31 April', json({ createdAt: '2026-04-31T00:00:00Z' }), 'invalid-field'],
      ['createdAt as epoch ms', json({ createdAt: 1763801523265 }), 'invalid-field'],
      ['missing type', json({}, ['type']), 'invalid-field'],
      ['type not a string', json({ type: 7 }), 'invalid-field'],
      ['empty type', json({ type: '' }), 'invalid-field'],
      ['missing createdBy', json({}, ['createdBy']), 'invalid-field'],
      ['empty createdBy', json({ createdBy: '' }), 'invalid-field'],
      ['createdBy of 256 characters', json({ createdBy: 'x'.repeat(256) }), 'invalid-field'],
      ['createdByUserId as a string', json({ createdByUserId: '2' }), 'invalid-field'],
      ['createdByUserId 1.5', json({ createdByUserId: 1.5 }), 'invalid-field'],
      ['empty featureName', json({ featureName: '' }), 'invalid-field'],
      ['project as a number', json({ project: 1 }), 'invalid-field'],
      ['data as an array', json({ data: [1, 2] }), 'invalid-field'],
      ['data as a string', json({ data: '{"a":1}' }), 'invalid-field'],
      ['preData as an array', json({ preData: [] }), 'invalid-field'],
      ['tags as an object', json({ tags: { value: 'ab', type: 'cd' } }), 'invalid-field'],
      ['a 1-character tag value', json({ tags: [{ value: 'a', type: 'simple' }] }), 'invalid-field'],
      ['a 51-character tag type', json({ tags: [{ value: 'ab', type: 't'.repeat(51) }] }), 'invalid-field'],
      ['a tag without a type', json({ tags: [{ value: 'ab' }] }), 'invalid-field'],
      ['a null tag', json({ tags: [null] }), 'invalid-field'],
      ['a tag in a nested array', json({ tags: [[{ value: 'ab', type: 'cd' }]] }), 'invalid-field'],
      [
        '1001 tags',
        json({ tags: Array.from({ length: 1001 }, () => ({ value: 'ab', type: 'cd' })) }),
        'invalid-field',
      ],
      ['an unknown type', json({ type: 'flag-teleported' }), 'unknown-type'],
    ])('%s -> %s', (_name, value, code) => {
      const reason = expectFailure(parseEvent(value), code);
      expect(reason.length).toBeGreaterThan(0);
    });

    it('says which property failed and why', () => {
      expect(
        expectFailure(parseEvent(json({ id: 0, tags: [{ value: 'a', type: 'team' }] })), 'invalid-field'),
      ).toBe(
        'id: id must not be less than 1; tags.0.value: value must be longer than or equal to 2 characters',
      );
      expect(expectFailure(parseEvent(json({}, ['id'])), 'invalid-field')).toMatch(
        /^id: id should not be null or undefined; /,
      );
      expect(
        expectFailure(parseEvent(json({ createdAt: '2026-11-22T08:52:03' })), 'invalid-field'),
      ).toContain(
        'createdAt: createdAt must be an RFC 3339 date-time with a time zone (e.g. 2026-11-22T08:52:03.265Z)',
      );
      expect(expectFailure(parseEvent(json({ data: [] })), 'invalid-field')).toBe(
        'data: data must be an object',
      );
      expect(expectFailure(parseEvent(json({ createdByUserId: '2' })), 'invalid-field')).toContain(
        'createdByUserId: createdByUserId must be an integer number',
      );
      expect(
        expectFailure(parseEvent(json({ tags: [{ value: 'ab', type: 't'.repeat(51) }] })), 'invalid-field'),
      ).toBe('tags.0.type: type must be shorter than or equal to 50 characters');
    });

    it('names an unknown type, and reports it as invalid-field when something else is wrong too', () => {
      expect(expectFailure(parseEvent(json({ type: 'flag-teleported' })), 'unknown-type')).toBe(
        'unknown event type "flag-teleported"',
      );
      const both = expectFailure(parseEvent(json({ type: 'flag-teleported', id: 0 })), 'invalid-field');
      expect(both).toBe('id: id must not be less than 1; type: unknown event type "flag-teleported"');
    });

    it('accepts an unknown type with allowUnknownTypes, marked knownType: false', () => {
      const result = expectOk(parseEvent(json({ type: 'flag-teleported' }), { allowUnknownTypes: true }));
      expect(result.knownType).toBe(false);
      expect(result.event.type).toBe('flag-teleported');
      // the option does not excuse anything else
      expectFailure(
        parseEvent(json({ type: 'flag-teleported', id: 0 }), { allowUnknownTypes: true }),
        'invalid-field',
      );
      expectFailure(parseEvent(json({ type: '' }), { allowUnknownTypes: true }), 'invalid-field');
      expectFailure(
        parseEvent(json({ type: 'x'.repeat(256) }), { allowUnknownTypes: true }),
        'invalid-field',
      );
    });

    it('limits the size before parsing: 1 MiB by default, in bytes', () => {
      const big = json({ data: { blob: 'x'.repeat(2 * 1024 * 1024) } });
      expect(expectFailure(parseEvent(big), 'too-large')).toMatch(/more than the limit of 1048576 bytes/);
      expectFailure(parseEvent(Buffer.from(big)), 'too-large');
      // an invalid JSON text that is too large is "too-large": the size is checked first
      expectFailure(parseEvent('{' + 'x'.repeat(DEFAULT_MAX_EVENT_BYTES)), 'too-large');
      // 400,000 three-byte characters: fewer UTF-16 units than the limit, more bytes
      const wide = json({ data: { blob: '€'.repeat(400_000) } });
      expect(wide.length).toBeLessThan(DEFAULT_MAX_EVENT_BYTES);
      expectFailure(parseEvent(wide), 'too-large');
      // exactly at the limit is fine
      const padding = DEFAULT_MAX_EVENT_BYTES - Buffer.byteLength(json({ data: { blob: '' } }));
      expectOk(parseEvent(json({ data: { blob: 'x'.repeat(padding) } })));
      expectFailure(parseEvent(json({ data: { blob: 'x'.repeat(padding + 1) } })), 'too-large');
    });

    it('refuses a value nested more than 64 levels deep, before parsing it (a 20,000-level data overflowed the stack)', () => {
      const nested = (levels: number) =>
        JSON.parse('{"a":'.repeat(levels) + '1' + '}'.repeat(levels)) as object;
      // built as text: JSON.stringify itself overflows on it
      const deep = json({ type: 'default-strategy-updated', data: '@' }).replace(
        '"@"',
        '{"a":'.repeat(20_000) + '1' + '}'.repeat(20_000),
      );
      expect(expectFailure(parseEvent(deep), 'too-deep')).toBe(
        'value nests more than 64 levels deep (the limit)',
      );
      expectFailure(parseEvent(Buffer.from(deep)), 'too-deep');
      // the event object is level 1 and data level 2: data may nest 63 levels
      expectOk(parseEvent(json({ data: nested(63) })));
      expectFailure(parseEvent(json({ data: nested(64) })), 'too-deep');
      // brackets inside strings (escaped quotes included) do not count
      expectOk(parseEvent(json({ data: { s: '[[[[{{{{"\\'.repeat(100) } })));
      expectFailure(
        parseEvent(json({ preData: { a: JSON.parse('['.repeat(70) + ']'.repeat(70)) as unknown } })),
        'too-deep',
      );
    });

    it('skips the depth walk only when there are too few brackets to nest past the limit', () => {
      // many brackets, shallow: counted past the limit, then walked and accepted
      expectOk(parseEvent(json({ data: { list: Array.from({ length: 200 }, (_, i) => ({ i, t: [i] })) } })));
      expect(bracketsAtMost('{"a":[1,{"b":[]}]}', 4)).toBe(true);
      expect(bracketsAtMost('{"a":[1,{"b":[]}]}', 3)).toBe(false);
      expect(bracketsAtMost('{"s":"[[{{"}', 2)).toBe(false); // in strings too: it only over-counts
      // never lets a text through that the walk would refuse
      fc.assert(
        fc.property(fc.jsonValue({ maxDepth: 8 }), fc.integer({ min: 0, max: 10 }), (v, limit) => {
          const text = JSON.stringify(v);
          if (bracketsAtMost(text, limit)) expect(jsonDepthBeyond(text, limit)).toBe(0);
        }),
      );
    });

    it('refuses names with a lone surrogate, which Postgres would store as U+FFFD and merge', () => {
      for (const field of ['featureName', 'project', 'environment', 'createdBy']) {
        const reason = expectFailure(parseEvent(json({ [field]: 'flag-\ud800' })), 'invalid-field');
        expect(reason).toContain(`${field} must be well-formed Unicode`);
      }
      expectFailure(
        parseEvent(json({ type: 'feature-\udc00' }), { allowUnknownTypes: true }),
        'invalid-field',
      );
      expectFailure(parseEvent(json({ tags: [{ value: 'a\ud83d', type: 'simple' }] })), 'invalid-field');
      // a proper pair is fine
      expectOk(parseEvent(json({ featureName: 'flag-\ud83d\ude00' })));
    });

    it('limits the flag and variant names of SDK metrics to 255 characters (a 4,000-character one overflowed an index row)', () => {
      const metrics = (toggles: Record<string, unknown>) =>
        json({
          type: 'client-metrics',
          featureName: null,
          data: {
            appName: 'web',
            bucket: { start: '2026-11-22T08:51:52Z', stop: '2026-11-22T08:52:52Z', toggles },
          },
        });
      expectOk(parseEvent(metrics({ ['f'.repeat(255)]: { yes: 1, no: 0 } })));
      const reason = expectFailure(
        parseEvent(metrics({ ['f'.repeat(4000)]: { yes: 1, no: 0 } })),
        'invalid-field',
      );
      expect(reason).toContain('each key of toggles must be 1 to 255 characters');
      expectFailure(parseEvent(metrics({ 'x\udfff': { yes: 1, no: 0 } })), 'invalid-field');
      expectFailure(
        parseEvent(metrics({ f: { yes: 1, no: 0, variants: { ['v'.repeat(256)]: 1 } } })),
        'invalid-field',
      );
    });

    it('honours maxBytes', () => {
      const value = json();
      expectOk(parseEvent(value, { maxBytes: Buffer.byteLength(value) }));
      expectFailure(parseEvent(value, { maxBytes: Buffer.byteLength(value) - 1 }), 'too-large');
    });

    it('keeps the parser message, at most 200 characters of it', () => {
      const reason = expectFailure(parseEvent('{"id": 1,'), 'malformed-json');
      expect(reason).toMatch(/^malformed JSON: /);
      const long = expectFailure(parseEvent('{"' + 'k'.repeat(5000) + '": tru}'), 'malformed-json');
      expect(long.length).toBeLessThanOrEqual('malformed JSON: '.length + 200);
    });

    it('caps a long list of issues', () => {
      const tags = Array.from({ length: 40 }, () => ({ value: 'a', type: 'b' }));
      const reason = expectFailure(parseEvent(json({ tags })), 'invalid-field');
      expect(reason.split('; ')).toHaveLength(21);
      expect(reason).toMatch(/; \.\.\. and 60 more$/);
    });
  });

  it('never throws, whatever it is given (property)', () => {
    const anyValue = fc.oneof(
      fc.string(),
      fc.string({ unit: 'binary' }),
      fc.uint8Array().map((a) => Buffer.from(a)),
      fc.jsonValue().map((v) => JSON.stringify(v) ?? 'null'),
      fc
        .record({
          id: fc.jsonValue(),
          createdAt: fc.jsonValue(),
          type: fc.jsonValue(),
          createdBy: fc.jsonValue(),
          data: fc.jsonValue(),
          tags: fc.jsonValue(),
        })
        .map((o) => JSON.stringify(o)),
      fc.constantFrom(
        null,
        undefined,
        5 as unknown as string,
        {} as unknown as string,
        [] as unknown as string,
      ),
    );
    fc.assert(
      fc.property(anyValue, fc.boolean(), (value, allowUnknownTypes) => {
        const result = parseEvent(value as string, { allowUnknownTypes });
        if (result.ok) {
          expect(typeof result.event.createdAt).toBe('string');
        } else {
          expect(DEAD_LETTER_CODES).toContain(result.code);
          expect(typeof result.reason).toBe('string');
        }
      }),
      { numRuns: 3000 },
    );
  });
});
