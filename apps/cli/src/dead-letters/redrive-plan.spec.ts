import { planRedrive } from './redrive-plan';
import { safeRawValue } from './safe-raw-value';

const event = (type: string) =>
  Buffer.from(
    JSON.stringify({
      id: 7,
      createdAt: '2026-11-01T10:00:00.000Z',
      type,
      createdBy: 'alice',
      createdByUserId: 1,
      environment: null,
      project: 'default',
      featureName: 'f1',
      data: null,
      preData: null,
      tags: [],
    }),
  );
const row = (id: number, value: Buffer | null) => ({
  id,
  topic: 't',
  partition: 2,
  offset: 40 + id,
  key: null,
  value,
});

describe('planRedrive', () => {
  it('accepts an unknown type only when the configuration now allows it, keeping where it came from', () => {
    const rows = [row(1, event('feature-teleported')), row(2, Buffer.from('{"id": 1,'))];
    const before = planRedrive(rows, { allowUnknownTypes: false, maxBytes: 1 << 20 });
    expect(before.items).toHaveLength(0);
    expect(before.stillInvalid.map((s) => s.code)).toEqual(['unknown-type', 'malformed-json']);

    const after = planRedrive(rows, { allowUnknownTypes: true, maxBytes: 1 << 20 });
    expect(after.items).toHaveLength(1);
    expect(after.items[0]).toMatchObject({
      deadLetterId: 1,
      event: { knownType: false, topic: 't', partition: 2, offset: 41, event: { id: 7 } },
    });
    expect(after.stillInvalid).toEqual([
      { deadLetterId: 2, code: 'malformed-json', reason: expect.any(String) },
    ]);
  });
});

describe('safeRawValue', () => {
  it('escapes control characters, truncates, and shows non-UTF-8 bytes as base64', () => {
    expect(safeRawValue(Buffer.from('{"a":"\u001b[31mred"}'))).toBe('{\\"a\\":\\"\\u001b[31mred\\"}');
    expect(safeRawValue(Buffer.from('x'.repeat(50)), 10)).toBe('xxxxxxxxxx… (50 bytes, truncated)');
    expect(safeRawValue(Buffer.from([0xff, 0xfe]))).toBe('base64://4=');
    expect(safeRawValue(null)).toBe('(null)');
    expect(safeRawValue(Buffer.alloc(0))).toBe('(empty)');
  });
});
