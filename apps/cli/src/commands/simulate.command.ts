import { createWriteStream } from 'node:fs';
import { Readable } from 'node:stream';
import { Command, CommandRunner, Option } from 'nest-commander';
import { AppConfig } from '@flaglens/config';
import { createKafka } from '@flaglens/kafka';
import { generateHistory } from '@flaglens/projections';
import { publishNdjson } from '../ndjson-publisher';

interface SimulateFlags {
  seed: number;
  projects: number;
  weeks: number;
  flags: number;
  events: number;
  end: string;
  out?: string;
  publish?: boolean;
  topic?: string;
  rich?: boolean;
}

const int = (v: string): number => {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0) throw new Error(`not a non-negative integer: ${v}`);
  return n;
};

@Command({
  name: 'simulate',
  description:
    'Generate a realistic synthetic event history (deterministic from --seed): N projects over W weeks, as NDJSON (--out, default stdout) or to the topic (--publish)',
})
export class SimulateCommand extends CommandRunner {
  constructor(private readonly config: AppConfig) {
    super();
  }

  async run(_args: string[], f: SimulateFlags): Promise<void> {
    const events = generateHistory({
      seed: f.seed ?? 1,
      projects: f.projects ?? 3,
      flagsPerProject: f.flags ?? 50,
      events: f.events ?? 10_000,
      weeks: f.weeks ?? 12,
      end: f.end ?? new Date().toISOString(),
      rich: f.rich ?? false,
    });
    const lines = () => Readable.from(events.map((e) => JSON.stringify(e) + '\n'));
    if (f.publish) {
      const kafka = createKafka({
        brokers: this.config.KAFKA_BROKERS,
        clientId: `${this.config.KAFKA_CLIENT_ID}-cli`,
      });
      const topic = f.topic ?? this.config.KAFKA_TOPIC;
      const summary = await publishNdjson(kafka, lines(), { topic });
      process.stderr.write(
        `sent ${summary.sent} event(s) to ${topic}; rejected ${summary.rejected.length}\n`,
      );
      return;
    }
    const out = f.out && f.out !== '-' ? createWriteStream(f.out) : process.stdout;
    const toStdout = out === process.stdout;
    await new Promise<void>((resolve, reject) => {
      const src = lines();
      src.on('error', reject);
      out.on('error', reject);
      if (toStdout) src.on('end', () => resolve());
      else out.on('finish', () => resolve());
      src.pipe(out, { end: !toStdout });
    });
    process.stderr.write(`generated ${events.length} event(s)\n`);
  }

  @Option({ flags: '--seed <n>', description: 'PRNG seed (same seed, same history; default 1)' })
  parseSeed(v: string): number {
    return int(v);
  }
  @Option({ flags: '--projects <n>', description: 'projects, `default` included (default 3)' })
  parseProjects(v: string): number {
    return Math.max(1, int(v));
  }
  @Option({ flags: '--weeks <n>', description: 'weeks of history (default 12)' })
  parseWeeks(v: string): number {
    return Math.max(1, int(v));
  }
  @Option({ flags: '--flags <n>', description: 'flags created per project (default 50)' })
  parseFlags(v: string): number {
    return Math.max(1, int(v));
  }
  @Option({ flags: '--events <n>', description: 'approximate number of events (default 10000)' })
  parseEvents(v: string): number {
    return int(v);
  }
  @Option({ flags: '--end <date-time>', description: 'the history ends at this time (default now)' })
  parseEnd(v: string): string {
    if (Number.isNaN(Date.parse(v))) throw new Error(`not a date-time: ${v}`);
    return new Date(v).toISOString();
  }
  @Option({ flags: '--out <file>', description: 'write NDJSON to this file (- for stdout)' })
  parseOut(v: string): string {
    return v;
  }
  @Option({ flags: '--publish', description: 'produce to the topic instead of writing NDJSON' })
  parsePublish(): boolean {
    return true;
  }
  @Option({
    flags: '--rich',
    description:
      'also users, groups, membership changes and project archive/revive/delete (as the chaos run)',
  })
  parseRich(): boolean {
    return true;
  }
  @Option({ flags: '--topic <topic>', description: 'topic for --publish (default KAFKA_TOPIC)' })
  parseTopic(v: string): string {
    return v;
  }
}
