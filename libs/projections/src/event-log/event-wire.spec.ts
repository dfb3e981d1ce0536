import { toWireJson } from './event-wire';
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
