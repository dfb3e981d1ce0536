import fc from 'fast-check';
import { copyField, CopyTextWriter } from './copy-text';

type Field = string | number | boolean | null | undefined;

/** The rows by the generic encoding: each field through `copyField`, as UTF-8. */
const expected = (rows: Field[][]): Buffer =>
  Buffer.from(rows.map((r) => r.map(copyField).join('\t') + '\n').join(''), 'utf8');

const written = (rows: Field[][], sizeHint: number): Buffer => {
  const w = new CopyTextWriter(sizeHint);
  for (const r of rows) {
    for (const f of r) w.field(f);
    w.endRow();
  }
  return w.bytes();
};

describe('CopyTextWriter', () => {
  const field: fc.Arbitrary<Field> = fc.oneof(
    fc.string({
      unit: fc.constantFrom('a', 'Z', '0', '\\', '\t', '\n', '\r', '"', 'é', '\u2028', '😀', '\u007f'),
    }),
    fc.string({ unit: 'grapheme-ascii' }),
    fc.string({ unit: 'binary' }), // lone surrogates too: written as U+FFFD, as Buffer.from writes them
    fc.maxSafeInteger(),
    fc.integer(),
    fc.constantFrom(0, -0, 9, 10, 99, 100, Number.MAX_SAFE_INTEGER, Number.MIN_SAFE_INTEGER),
    fc.double(), // not safe integers: as String renders them (NaN, Infinity, 1e+21, 0.5)
    fc.boolean(),
    fc.constantFrom(null, undefined),
  );

  it('writes any field exactly as copyField encodes it, growing from any size hint', () => {
    fc.assert(
      fc.property(
        fc.array(fc.array(field, { minLength: 1, maxLength: 8 }), { maxLength: 12 }),
        fc.nat(300),
        (rows, hint) => {
          expect(written(rows, hint).equals(expected(rows))).toBe(true);
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('writes integers in decimal and NULL as \\N', () => {
    const rows: Field[][] = [[0, -7, 1234567890, Number.MAX_SAFE_INTEGER, null, true, 'x\\y']];
    expect(written(rows, 0).toString('utf8')).toBe(
      '0\t-7\t1234567890\t9007199254740991\t\\N\ttrue\tx\\\\y\n',
    );
  });

  it('copies UTF-8 bytes without special bytes as they are, and escapes the others like text', () => {
    const w = new CopyTextWriter(1);
    w.utf8(Buffer.from('{"k":"é"}'));
    w.utf8(Buffer.from('{\n\t"k": "a\\"b"\r}'));
    w.endRow();
    w.utf8(Buffer.from('x'));
    w.field(null);
    w.endRow();
    expect(w.bytes().toString('utf8')).toBe('{"k":"é"}\t{\\n\\t"k": "a\\\\"b"\\r}\nx\t\\N\n');
  });
});
