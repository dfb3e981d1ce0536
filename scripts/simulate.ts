/**
 * Generates a realistic synthetic event history, deterministic from --seed: N projects over W weeks, as NDJSON
 * (--out, default stdout) or produced to the topic (--publish). A development tool: the generator lives in the
 * testing library, which production code never imports, so this is a script and not a CLI command.
 *
 *   npm run simulate -- [--seed n] [--projects n] [--flags n] [--events n] [--weeks n] [--end t] [--rich]
 *                       [--out file | --publish [--topic t]]
 */
import { createWriteStream } from 'node:fs';
import { Readable } from 'node:stream';
import { parseArgs } from 'node:util';
import { loadConfigOrExit } from '@flaglens/config';
import { createKafka } from '@flaglens/kafka';
import { generateHistory } from '@flaglens/testing/generate-history';
import { publishNdjson } from '../apps/cli/src/ndjson-publisher';

const USAGE =
  'usage: npm run simulate -- [--seed n] [--projects n] [--flags n] [--events n] [--weeks n] [--end date-time] ' +
  '[--rich] [--out file | --publish [--topic t]]';

function int(name: string, v: string | undefined, fallback: number, min = 0): number {
  if (v === undefined) return fallback;
  const n = Number(v);
  if (!Number.isInteger(n) || n < min) throw new Error(`--${name}: not an integer ≥ ${min}: ${v}`);
  return n;
}

async function main(): Promise<void> {
  const { values: f } = parseArgs({
    options: {
      seed: { type: 'string' },
      projects: { type: 'string' },
      flags: { type: 'string' },
      events: { type: 'string' },
      weeks: { type: 'string' },
      end: { type: 'string' },
      out: { type: 'string' },
      publish: { type: 'boolean' },
      topic: { type: 'string' },
      rich: { type: 'boolean' },
      help: { type: 'boolean' },
    },
  });
  if (f.help) {
    process.stdout.write(USAGE + '\n');
    return;
  }
  if (f.end !== undefined && Number.isNaN(Date.parse(f.end)))
    throw new Error(`--end: not a date-time: ${f.end}`);
  const events = generateHistory({
    seed: int('seed', f.seed, 1),
    projects: int('projects', f.projects, 3, 1),
    flagsPerProject: int('flags', f.flags, 50, 1),
    events: int('events', f.events, 10_000),
    weeks: int('weeks', f.weeks, 12, 1),
    end: new Date(f.end ?? Date.now()).toISOString(),
    rich: f.rich ?? false,
  });
  const lines = () => Readable.from(events.map((e) => JSON.stringify(e) + '\n'));
  if (f.publish) {
    const config = loadConfigOrExit();
    const kafka = createKafka({
      brokers: config.KAFKA_BROKERS,
      clientId: `${config.KAFKA_CLIENT_ID}-simulate`,
    });
    const topic = f.topic ?? config.KAFKA_TOPIC;
    const summary = await publishNdjson(kafka, lines(), { topic });
    process.stderr.write(`sent ${summary.sent} event(s) to ${topic}; rejected ${summary.rejected.length}\n`);
    return;
  }
  const out = f.out && f.out !== '-' ? createWriteStream(f.out) : process.stdout;
  await new Promise<void>((resolve, reject) => {
    const src = lines();
    src.on('error', reject);
    out.on('error', reject);
    if (out === process.stdout) src.on('end', () => resolve());
    else out.on('finish', () => resolve());
    src.pipe(out, { end: out !== process.stdout });
  });
  process.stderr.write(`generated ${events.length} event(s)\n`);
}

main().catch((e: unknown) => {
  process.stderr.write(`simulate: ${e instanceof Error ? e.message : String(e)}\n${USAGE}\n`);
  process.exit(2);
});
