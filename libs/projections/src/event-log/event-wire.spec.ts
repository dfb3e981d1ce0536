import fc from 'fast-check';
import { toWireJson } from './event-wire';
import { eventLogCopyRow, type SourcedEvent } from './event-log.projection';
import { copyField, copyRow } from './copy-text';

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
});

describe('COPY text encoding', () => {
  it('escapes backslashes and delimiters, and writes NULL as \\N', () => {
    expect(copyField(null)).toBe('\\N');
    expect(copyField('a\\b\tc\nd\re')).toBe('a\\\\b\\tc\\nd\\re');
    expect(copyField(12)).toBe('12');
    expect(copyRow(['x', null, true])).toBe('x\t\\N\ttrue\n');
  });
});

describe('eventLogCopyRow', () => {
  it('equals the generic COPY encoding of the 13 columns, for any text in any field', () => {
    const text = fc.string({ unit: fc.constantFrom('a', 'é', '\\', '\t', '\n', '\r', '"', '\u2028', 'x') });
    const optText = fc.option(text, { nil: null });
    fc.assert(
      fc.property(
        fc.record({
          id: fc.integer({ min: 1, max: 2 ** 40 }),
          type: text,
          createdBy: text,
          createdByUserId: fc.option(fc.integer({ min: 1 }), { nil: null }),
          featureName: optText,
          project: optText,
          environment: optText,
          note: text,
        }),
        fc.boolean(),
        fc.option(fc.nat(), { nil: null }),
        (o, knownType, offset) => {
          const { note, ...fields } = o;
          const s: SourcedEvent = {
            event: {
              ...fields,
              createdAt: '2026-11-22T08:52:48.003Z',
              data: { note },
              preData: null,
              tags: null,
            },
            knownType,
            topic: offset === null ? null : 't\\1',
            partition: offset === null ? null : 3,
            offset,
          };
          const e = s.event;
          expect(eventLogCopyRow(s)).toBe(
            copyRow([
              e.id,
              e.createdAt,
              e.type,
              e.featureName,
              e.project,
              e.environment,
              e.createdBy,
              e.createdByUserId,
              s.knownType,
              toWireJson(e),
              s.topic,
              s.partition,
              s.offset,
            ]),
          );
        },
      ),
    );
  });
});
