import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import fc from 'fast-check';
import {
  fastRecordDecoder,
  installRecordDecoder,
  type DecodeRecord,
  type KafkaDecoder,
  type RecordBatchContext,
} from './record-decoder';

const ROOT = join(__dirname, '..', '..', '..');

/* eslint-disable @typescript-eslint/no-require-imports */
const kafkajsDecodeRecord = require('kafkajs/src/protocol/recordBatch/record/v0/decoder.js') as DecodeRecord;
const Decoder = require('kafkajs/src/protocol/decoder.js') as new (b: Buffer) => KafkaDecoder;
/* eslint-enable @typescript-eslint/no-require-imports */

const decodeRecord = fastRecordDecoder(kafkajsDecodeRecord);

/** Unsigned LEB128 of a non-negative bigint, padded with `pad` extra zero groups (a valid, longer form). */
function uvarint(n: bigint, pad = 0): number[] {
  const out: number[] = [];
  do {
    out.push(Number(n & 0x7fn));
    n >>= 7n;
  } while (n > 0n);
  for (let i = 0; i < pad; i++) out.push(0);
  return out.map((b, i) => (i < out.length - 1 ? b | 0x80 : b));
}
const zigzag = (n: bigint, bits: bigint) => BigInt.asUintN(Number(bits), (n << 1n) ^ (n >> (bits - 1n)));
const varint = (n: number) => uvarint(zigzag(BigInt(n), 32n));
const varlong = (n: bigint, pad = 0) => uvarint(zigzag(n, 64n), pad);
const bytes = (b: Buffer | null) => (b === null ? varint(-1) : [...varint(b.length), ...b]);

interface RawRecord {
  attributes: number;
  timestampDelta: bigint;
  pad: number;
  offsetDelta: number;
  key: Buffer | null;
  value: Buffer | null;
  headers: { key: string; value: Buffer | null }[];
}

/** A record's bytes as a batch holds them after its length prefix (any attributes, longer varint forms). */
function recordBytes(r: RawRecord): Buffer {
  return Buffer.from([
    r.attributes & 0xff,
    ...varlong(r.timestampDelta, r.pad),
    ...varint(r.offsetDelta),
    ...bytes(r.key),
    ...bytes(r.value),
    ...varint(r.headers.length),
    ...r.headers.flatMap((h) => [...bytes(Buffer.from(h.key)), ...bytes(h.value)]),
  ]);
}

const int64 = fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n });
const nearSafe = fc.bigInt({ min: 2n ** 53n - 1000n, max: 2n ** 53n + 1000n });
const offsetString = fc.oneof(
  fc.nat({ max: 2 ** 40 }).map(String),
  nearSafe.map(String),
  int64.map(String),
  fc.constant('-1'),
);
const buffer = fc.option(
  fc.uint8Array({ maxLength: 40 }).map((a) => Buffer.from(a)),
  { freq: 4 },
);
const record: fc.Arbitrary<RawRecord> = fc.record({
  attributes: fc.integer({ min: -128, max: 127 }),
  timestampDelta: fc.oneof(fc.bigInt({ min: -(2n ** 20n), max: 2n ** 20n }), nearSafe, int64),
  pad: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 4 })),
  offsetDelta: fc.oneof(fc.nat({ max: 10_000 }), fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 })),
  key: buffer,
  value: buffer,
  headers: fc.oneof(
    { weight: 4, arbitrary: fc.constant([]) },
    fc.array(
      fc.record({
        key: fc.constantFrom('a', 'b', 'trace', '__proto__', 'toString', 'ünï'),
        value: buffer,
      }),
      { maxLength: 4 },
    ),
  ),
});
const context: fc.Arbitrary<RecordBatchContext> = fc.record({
  firstOffset: offsetString,
  firstTimestamp: fc.oneof(fc.constant('-1'), fc.nat({ max: 2 ** 45 }).map(String), offsetString),
  maxTimestamp: fc.oneof(fc.constant('-1'), fc.constant('0'), offsetString),
  timestampType: fc.constantFrom(0, 1),
  magicByte: fc.constant(2),
  isControlBatch: fc.boolean(),
});

/** Both decoders on the same bytes: the same record (or the same error), the same bytes consumed. */
function both(bytesOfRecord: Buffer, ctx: RecordBatchContext): void {
  const theirs = new Decoder(bytesOfRecord);
  const ours = new Decoder(bytesOfRecord);
  let expected: unknown;
  let expectedError: unknown;
  try {
    expected = kafkajsDecodeRecord(theirs, ctx);
  } catch (e) {
    expectedError = e;
  }
  if (expectedError !== undefined) {
    expect(() => decodeRecord(ours, ctx)).toThrow((expectedError as Error).message);
    return;
  }
  expect(decodeRecord(ours, ctx)).toStrictEqual(expected);
  expect(ours.offset).toBe(theirs.offset);
}

describe('fastRecordDecoder', () => {
  it("gives kafkajs' record for any record and batch context", () => {
    fc.assert(
      fc.property(record, context, (r, ctx) => both(recordBytes(r), ctx)),
      { numRuns: 3000 },
    );
  });

  it("gives kafkajs' records for a batch's records decoded one after another with one context", () => {
    fc.assert(
      fc.property(fc.array(record, { minLength: 1, maxLength: 20 }), context, (rs, ctx) => {
        for (const r of rs) both(recordBytes(r), ctx);
      }),
      { numRuns: 300 },
    );
  });

  it("gives kafkajs' answer for records cut short", () => {
    fc.assert(
      fc.property(record, context, fc.nat(), (r, ctx, cut) => {
        const b = recordBytes(r);
        both(b.subarray(0, cut % (b.length + 1)), ctx);
      }),
      { numRuns: 1000 },
    );
  });

  it('decodes the common record (safe offsets and timestamps, no headers) without kafkajs', () => {
    const calls: unknown[] = [];
    const decode = fastRecordDecoder((d, c) => (calls.push(c), kafkajsDecodeRecord(d, c)));
    const ctx: RecordBatchContext = {
      firstOffset: '1000000000',
      firstTimestamp: String(Date.parse('2026-11-24T09:00:00Z')),
      maxTimestamp: '-1',
      timestampType: 0,
      magicByte: 2,
      isControlBatch: false,
    };
    const raw: RawRecord = {
      attributes: 0,
      timestampDelta: 17n,
      pad: 0,
      offsetDelta: 3,
      key: Buffer.from('k'),
      value: Buffer.from('{}'),
      headers: [],
    };
    const got = decode(new Decoder(recordBytes(raw)), ctx) as { offset: string; timestamp: string };
    expect(calls).toHaveLength(0);
    expect(got.offset).toBe('1000000003');
    expect(got.timestamp).toBe(String(Date.parse('2026-11-24T09:00:00.017Z')));
    // a header, an offset past 2^53, or a delta of eight varint bytes go to kafkajs
    decode(new Decoder(recordBytes({ ...raw, headers: [{ key: 'a', value: null }] })), ctx);
    decode(new Decoder(recordBytes(raw)), { ...ctx, firstOffset: String(2 ** 53) });
    decode(new Decoder(recordBytes({ ...raw, pad: 7 })), ctx);
    expect(calls).toHaveLength(3);
  });
});

describe('installRecordDecoder', () => {
  it("puts the decoder in place of kafkajs' in a Node process, before kafkajs' first fetch", () => {
    // jest's module registry has no require.cache: a plain Node process, as the projector runs
    const script = `
      const { installRecordDecoder } = require('./libs/kafka/src/record-decoder.ts');
      require('kafkajs');
      const first = installRecordDecoder();
      const again = installRecordDecoder();
      const decodeRecord = require('kafkajs/src/protocol/recordBatch/record/v0/decoder.js');
      require('kafkajs/src/protocol/recordBatch/v0/decoder.js');
      console.log(JSON.stringify([first, again, decodeRecord.name]));
    `;
    const out = execFileSync(process.execPath, ['-r', 'ts-node/register/transpile-only', '-e', script], {
      cwd: ROOT,
    });
    expect(JSON.parse(out.toString())).toEqual(['installed', 'installed', 'decodeRecord']);
  });

  it("keeps kafkajs' decoder when the batch decoder that holds it is already loaded", () => {
    const script = `
      require('kafkajs/src/protocol/recordBatch/v0/decoder.js');
      const { installRecordDecoder } = require('./libs/kafka/src/record-decoder.ts');
      console.log(JSON.stringify(installRecordDecoder()));
    `;
    const out = execFileSync(process.execPath, ['-r', 'ts-node/register/transpile-only', '-e', script], {
      cwd: ROOT,
    });
    expect(JSON.parse(out.toString())).toBe('already-loaded');
  });

  it("puts it in place in jest's module registry too (the int tests' consumers use it)", () => {
    expect(installRecordDecoder()).toBe('installed');
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    expect((require('kafkajs/src/protocol/recordBatch/record/v0/decoder.js') as DecodeRecord).name).toBe(
      'decodeRecord',
    );
  });
});
