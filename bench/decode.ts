/*
 * What the projector pays per record before any projection runs, on one core and without Postgres: kafkajs'
 * decoding of a fetched record batch (its own decoder, on a batch its own encoder wrote) beside our classify
 * (JSON.parse and the contract's checks) of the same values. Five passes each over batches of the bench's
 * events, the median reported in µs per record.
 *
 *   npx ts-node -r tsconfig-paths/register --transpile-only bench/decode.ts [--events N] [--batch N]
 */
import { eventKey } from '@flaglens/contract';
import { profileHistory } from './profile-history';
import { median } from './stats';
import { classifyMessages } from '@flaglens/pipeline';
import { cliArgs } from '@flaglens/testing/support/cli-args';

// kafkajs' protocol layer is not part of its public API: these are the modules its consumer runs per fetch
/* eslint-disable @typescript-eslint/no-require-imports */
const protocol = (path: string) => require(`kafkajs/src/protocol/${path}`);
const { RecordBatch } = protocol('recordBatch/v0/index.js') as {
  RecordBatch: (o: object) => Promise<{ buffer: Buffer }>;
};
const Record = protocol('recordBatch/record/v0/index.js') as (o: object) => unknown;
const Decoder = protocol('decoder.js') as new (b: Buffer) => unknown;
const decodeBatch = protocol('recordBatch/v0/decoder.js') as (
  d: unknown,
) => Promise<{ records: { offset: string; key: Buffer; value: Buffer }[] }>;
/* eslint-enable @typescript-eslint/no-require-imports */

const args = cliArgs();
const EVENTS = Number(args.value('--events') ?? 100_000);
const BATCH = Number(args.value('--batch') ?? 4000);

async function main(): Promise<void> {
  const history = profileHistory(EVENTS);
  const firstOffset = 1_000_000_000;
  const batches: Buffer[] = [];
  for (let i = 0; i < history.length; i += BATCH) {
    const records = history.slice(i, i + BATCH).map((e, k) =>
      Record({
        offsetDelta: k,
        timestampDelta: k,
        key: Buffer.from(eventKey(e) ?? ''),
        value: Buffer.from(JSON.stringify(e)),
        headers: {},
      }),
    );
    const batch = await RecordBatch({
      firstOffset: String(firstOffset + i),
      firstTimestamp: Date.parse('2026-11-22T09:01:00.000Z'),
      lastOffsetDelta: records.length - 1,
      records,
    });
    batches.push(batch.buffer);
  }
  const bytes = batches.reduce((n, b) => n + b.length, 0);

  const decodeUs: number[] = [];
  const classifyUs: number[] = [];
  for (let pass = 0; pass < 5; pass++) {
    let decoded = 0;
    let accepted = 0;
    let decodeNs = 0n;
    let classifyNs = 0n;
    for (const buffer of batches) {
      const t0 = process.hrtime.bigint();
      const { records } = await decodeBatch(new Decoder(buffer));
      const t1 = process.hrtime.bigint();
      const c = classifyMessages(
        'bench',
        0,
        records.map((m) => ({ offset: Number(m.offset), key: m.key, value: m.value })),
        { allowUnknownTypes: false, maxBytes: 1 << 20 },
      );
      const t2 = process.hrtime.bigint();
      decodeNs += t1 - t0;
      classifyNs += t2 - t1;
      decoded += records.length;
      accepted += c.accepted.length;
    }
    if (decoded !== history.length || accepted !== history.length)
      throw new Error(`decoded ${decoded} and accepted ${accepted} of ${history.length} records`);
    decodeUs.push(Number(decodeNs) / 1e3 / decoded);
    classifyUs.push(Number(classifyNs) / 1e3 / decoded);
  }
  const f = (xs: number[]) =>
    `${median(xs).toFixed(2)} µs/record (passes ${xs.map((x) => x.toFixed(2)).join(', ')})`;
  console.log(
    `${history.length} records in ${batches.length} batches (${Math.round(bytes / history.length)} bytes/record)`,
  );
  console.log(`  kafkajs record batch decoding  ${f(decodeUs)}`);
  console.log(`  classify (parse, contract)     ${f(classifyUs)}`);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
