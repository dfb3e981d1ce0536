/**
 * Local measurement, not a test: how many sample events per second `parseEvent` handles on one core,
 * next to JSON.parse alone and to the class-validator path (plainToInstance + validateSync) alone.
 *
 *   npx ts-node -r tsconfig-paths/register --transpile-only libs/contract/bench/parse-event.bench.ts
 */
import 'reflect-metadata';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseEvent, validateFeatureEventWithDto } from '@flaglens/contract';

const lines = readFileSync(join(__dirname, '..', 'test-fixtures', 'reference-sample-events.ndjson'), 'utf8')
  .split('\n')
  .filter((l) => l.trim() !== '');
const buffers = lines.map((l) => Buffer.from(l, 'utf8'));
const avgBytes = Math.round(buffers.reduce((n, b) => n + b.length, 0) / buffers.length);

function measure(name: string, durationMs: number, step: (i: number) => unknown): void {
  // warm up
  for (let i = 0; i < 20_000; i++) step(i);
  let n = 0;
  const start = process.hrtime.bigint();
  const end = start + BigInt(durationMs) * 1_000_000n;
  let now = start;
  while (now < end) {
    for (let k = 0; k < 1000; k++) step(n++);
    now = process.hrtime.bigint();
  }
  const seconds = Number(now - start) / 1e9;
  console.log(
    `${name.padEnd(52)} ${Math.round(n / seconds)
      .toLocaleString('en-US')
      .padStart(10)} events/s`,
  );
}

const duration = Number(process.env.BENCH_MS ?? 3000);
console.log(`${lines.length} sample events, ${avgBytes} bytes on average, node ${process.version}`);
const parsed = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
measure('JSON.parse(buffer.toString()) only', duration, (i) =>
  JSON.parse(buffers[i % buffers.length].toString('utf8')),
);
measure('class-validator only (pre-parsed objects)', duration, (i) =>
  validateFeatureEventWithDto(parsed[i % parsed.length]),
);
measure('JSON.parse + class-validator', duration, (i) =>
  validateFeatureEventWithDto(JSON.parse(buffers[i % buffers.length].toString('utf8'))),
);
measure('parseEvent(buffer) (fast path)', duration, (i) => parseEvent(buffers[i % buffers.length]));
measure('parseEvent(string) (fast path)', duration, (i) => parseEvent(lines[i % lines.length]));
const bad = buffers.map((b) => Buffer.from(b.toString('utf8').replace('"id":', '"id":0,"x":')));
measure('parseEvent(invalid id) (reason by class-validator)', duration, (i) =>
  parseEvent(bad[i % bad.length]),
);
