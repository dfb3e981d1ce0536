import fc from 'fast-check';
import { toWireJson, wireFromRawFields, wireFromStored } from './event-wire';
import { eventLogCopyChunk, firstOfEachId, otherProjects } from './event-log.projection';
import type { SourcedEvent } from '../projection';
import { arrayLiteral, copyField } from './copy-text';
import { searchTexts } from './search-text';

const copyRow = (fields: (string | number | boolean | null | undefined)[]): string =>
  fields.map(copyField).join('\t') + '\n';

describe('toWireJson', () => {
  it('uses the reference key order and defaults tags to []', () => {
    const json = toWireJson({
      id: 7,
      createdAt: '2026-11-22T08:52:48.003Z',
      type: 'feature-created',
      createdBy: 'admin',
      createdByUserId: 1,
      environment: null,
      project: 'default',
      featureName: 'f',
      data: { b: 1, a: 2 },
      preData: null,
      tags: null,
    });
    expect(json).toBe(
      '{"id":7,"type":"feature-created","createdBy":"admin","createdAt":"2026-11-22T08:52:48.003Z","createdByUserId":1,' +
        '"data":{"b":1,"a":2},"preData":null,"tags":[],"featureName":"f","project":"default","environment":null}',
    );
  });

  it("appends Unleash 7+'s groupType and groupId only when set", () => {
    const event = {
      id: 7,
      createdAt: '2026-11-22T08:52:48.003Z',
      type: 'feature-created',
      createdBy: 'admin',
      createdByUserId: 1,
      environment: null,
      project: 'default',
      featureName: 'f',
      data: null,
      preData: null,
      tags: null,
    };
    expect(toWireJson({ ...event, groupType: 'transaction', groupId: '01K0' })).toBe(
      toWireJson(event).slice(0, -1) + ',"groupType":"transaction","groupId":"01K0"}',
    );
    expect(toWireJson(event)).not.toContain('group');
  });
});

describe('wireFromStored', () => {
  const body =
    '{ "environment":null, "featureName":"f", "id":7,"type":"feature-created","createdBy":"admin",' +
    '"createdAt":"2026-11-22T09:52:48.003+01:00","data":{"b":[1,{"c":"}],\\""}],"a":2},"tags":null,"project":"default"}';

  it('renders a body received in any key order and spacing in the wire form', () => {
    expect(wireFromStored(body)).toBe(
      '{"id":7,"type":"feature-created","createdBy":"admin","createdAt":"2026-11-22T08:52:48.003Z","createdByUserId":null,' +
        '"data":{"b":[1,{"c":"}],\\""}],"a":2},"preData":null,"tags":[],"featureName":"f","project":"default","environment":null}',
    );
  });

  it('splices the raw members when the serialiser cannot walk the body, with the same result for any body it can', () => {
    expect(wireFromRawFields(body)).toBe(wireFromStored(body));
    for (const group of [
      ',"groupType":"change-request","groupId":"42"',
      ',"groupType":null,"groupId":""',
      ',"groupType":{"x":1},"groupId":7',
    ]) {
      const grouped = body.slice(0, -1) + group + '}';
      expect(wireFromRawFields(grouped)).toBe(wireFromStored(grouped));
    }
    expect(wireFromStored(body.slice(0, -1) + ',"groupType":"change-request","groupId":"42"}')).toMatch(
      /"environment":null,"groupType":"change-request","groupId":"42"}$/,
    );
    // 20,000 levels: JSON.stringify overflows its stack; the list still renders (no 500 for a stored event)
    const deep = '{"a":'.repeat(20_000) + '1' + '}'.repeat(20_000);
    const stored = `{"id":8,"type":"default-strategy-updated","createdBy":"x","createdAt":"2026-11-22T08:52:48Z","data":${deep},"project":"p","environment":"e"}`;
    const wire = wireFromStored(stored);
    expect(
      wire.startsWith(
        '{"id":8,"type":"default-strategy-updated","createdBy":"x","createdAt":"2026-11-22T08:52:48.000Z","createdByUserId":null,"data":{"a":{"a":',
      ),
    ).toBe(true);
    expect(
      wire.endsWith('}},"preData":null,"tags":[],"featureName":null,"project":"p","environment":"e"}'),
    ).toBe(true);
    expect(() => JSON.parse(wire) as unknown).not.toThrow();
  });

  it('agrees with the parsing renderer on random events (property)', () => {
    fc.assert(
      fc.property(
        fc.record({
          id: fc.integer({ min: 1 }),
          type: fc.string(),
          createdBy: fc.string(),
          createdAt: fc
            .date({ min: new Date(0), max: new Date('2999-01-01'), noInvalidDate: true })
            .map((d) => d.toISOString()),
          createdByUserId: fc.option(fc.integer()),
          data: fc.option(fc.dictionary(fc.string(), fc.jsonValue())),
          tags: fc.option(fc.array(fc.record({ value: fc.string(), type: fc.string() }))),
          featureName: fc.option(fc.string()),
        }),
        (e) => {
          const stored = JSON.stringify(e, null, fc.sample(fc.constantFrom(0, 1, 2), 1)[0]);
          expect(JSON.parse(wireFromRawFields(stored))).toEqual(JSON.parse(wireFromStored(stored)));
        },
      ),
      { numRuns: 500 },
    );
  });
});

/** One event-log row by the generic COPY encoding: the oracle for `eventLogCopyChunk`. */
const expectedRow = (s: SourcedEvent): string => {
  const e = s.event;
  const texts = searchTexts(e);
  return copyRow([
    e.id,
    e.createdAt,
    e.type,
    e.featureName,
    e.project,
    e.environment,
    e.createdBy,
    e.createdByUserId,
    s.knownType,
    s.raw === undefined ? toWireJson(e) : s.raw.toString('utf8'),
    s.topic,
    s.partition,
    s.offset,
    e.type === 'feature-project-change' ? arrayLiteral(otherProjects(e)) : null,
    e.groupType ?? null,
    e.groupId ?? null,
    texts.data,
    texts.tags,
    texts.preData,
  ]);
};

describe('COPY text encoding', () => {
  it('escapes backslashes and delimiters, and writes NULL as \\N', () => {
    expect(copyField(null)).toBe('\\N');
    expect(copyField('a\\b\tc\nd\re')).toBe('a\\\\b\\tc\\nd\\re');
    expect(copyField(12)).toBe('12');
    expect(copyRow(['x', null, true])).toBe('x\t\\N\ttrue\n');
    expect(arrayLiteral([])).toBeNull();
    expect(arrayLiteral(['a', 'b c', 'q"u\\o'])).toBe('{"a","b c","q\\"u\\\\o"}');
  });
});

describe('eventLogCopyChunk of one row', () => {
  it('equals the generic COPY encoding of the 19 columns, for any text in any field', () => {
    const text = fc.string({ unit: fc.constantFrom('a', 'é', '\\', '\t', '\n', '\r', '"', '\u2028', 'x') });
    const optText = fc.option(text, { nil: null });
    fc.assert(
      fc.property(
        fc.record({
          id: fc.integer({ min: 1, max: 2 ** 40 }),
          type: fc.oneof(text, fc.constant('feature-project-change')),
          createdBy: text,
          createdByUserId: fc.option(fc.integer({ min: 1 }), { nil: null }),
          featureName: optText,
          project: optText,
          environment: optText,
          note: text,
          oldProject: optText,
          newProject: optText,
          groupType: fc.option(text, { nil: undefined }),
          groupId: fc.option(text, { nil: undefined }),
        }),
        fc.boolean(),
        fc.option(fc.nat(), { nil: null }),
        (o, knownType, offset) => {
          const { note, oldProject, newProject, groupType, groupId, ...fields } = o;
          const s: SourcedEvent = {
            event: {
              ...fields,
              ...(groupType === undefined ? {} : { groupType }),
              ...(groupId === undefined ? {} : { groupId }),
              createdAt: '2026-11-22T08:52:48.003Z',
              data: { note, oldProject, newProject },
              preData: null,
              tags: null,
            },
            knownType,
            topic: offset === null ? null : 't\\1',
            partition: offset === null ? null : 3,
            offset,
          };
          expect(eventLogCopyChunk([s]).toString('utf8')).toBe(expectedRow(s));
        },
      ),
    );
  });
});

describe('eventLogCopyChunk', () => {
  const text = fc.string({
    unit: fc.constantFrom('a', 'é', '\\', '\t', '\n', '\r', '"', '\u2028', '😀', 'x'),
  });
  const sourced = fc
    .record({
      id: fc.integer({ min: 1, max: 2 ** 40 }),
      createdBy: text,
      featureName: fc.option(text, { nil: null }),
      note: text,
      layout: fc.constantFrom('none', 'compact', 'pretty'),
      offset: fc.option(fc.nat(), { nil: null }),
    })
    .map(({ id, createdBy, featureName, note, layout, offset }): SourcedEvent => {
      const event = {
        id,
        type: 'feature-updated',
        createdBy,
        createdAt: '2026-11-22T08:52:48.003Z',
        createdByUserId: null,
        data: { note },
        preData: null,
        tags: null,
        featureName,
        project: 'default',
        environment: null,
      };
      const raw =
        layout === 'none'
          ? undefined
          : Buffer.from(layout === 'compact' ? JSON.stringify(event) : JSON.stringify(event, null, '\t'));
      return { event, knownType: true, topic: 't', partition: 0, offset, raw };
    });

  it('is the UTF-8 of the rows by the generic encoding, with raw bodies copied or escaped', () => {
    fc.assert(
      fc.property(fc.array(sourced, { maxLength: 20 }), (events) => {
        expect(eventLogCopyChunk(events).toString('utf8')).toBe(events.map(expectedRow).join(''));
      }),
    );
  });

  it('stores a raw body so that COPY gives back exactly the raw text', () => {
    fc.assert(
      fc.property(sourced, (s) => {
        const fields = eventLogCopyChunk([s]).toString('utf8').slice(0, -1).split('\t');
        const unescape = (f: string) =>
          f.replace(/\\(.)/g, (_, c: string) => ({ t: '\t', n: '\n', r: '\r' })[c] ?? c);
        expect(unescape(fields[9])).toBe(s.raw === undefined ? toWireJson(s.event) : s.raw.toString('utf8'));
      }),
    );
  });
});

describe('wireFromStored', () => {
  it('renders a stored body (raw, in any layout, or already wire) as the wire JSON of its event', () => {
    const raw =
      '{ "environment": null, "featureName": "f", "id": 3, "type": "feature-created",\n' +
      '  "createdAt": "2026-11-22T09:52:48+01:00", "createdBy": "a", "data": {"z": 1, "a": [1.0, "\\u00e9"]},\n' +
      '  "preData": null, "project": "p" }';
    const wire =
      '{"id":3,"type":"feature-created","createdBy":"a","createdAt":"2026-11-22T08:52:48.000Z",' +
      '"createdByUserId":null,"data":{"z":1,"a":[1,"é"]},"preData":null,"tags":[],"featureName":"f",' +
      '"project":"p","environment":null}';
    expect(wireFromStored(raw)).toBe(wire);
    expect(wireFromStored(wire)).toBe(wire);
  });
});

describe('firstOfEachId', () => {
  const at = (id: number, offset: number): SourcedEvent => ({
    event: {
      id,
      type: 'feature-updated',
      createdBy: 'a',
      createdAt: '2026-11-22T08:52:48.003Z',
      createdByUserId: null,
      data: null,
      preData: null,
      tags: null,
      featureName: 'f',
      project: 'p',
      environment: null,
    },
    knownType: true,
    topic: 't',
    partition: 0,
    offset,
  });

  it('keeps the first event of each id, in order, for any ids', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 1, max: 30 }), { maxLength: 40 }), (ids) => {
        const events = ids.map(at);
        const firsts = events.filter((s, i) => ids.indexOf(s.event.id) === i);
        expect(firstOfEachId(events)).toEqual(firsts);
      }),
    );
  });

  it('returns ascending ids as they are', () => {
    const events = [3, 4, 9, 10].map(at);
    expect(firstOfEachId(events)).toBe(events);
    expect(firstOfEachId([3, 3].map(at)).map((s) => s.offset)).toEqual([0]);
  });
});
