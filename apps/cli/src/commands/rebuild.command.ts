import { Command, CommandRunner, Option } from 'nest-commander';
import { Presets, SingleBar } from 'cli-progress';
import { AppConfig } from '@flaglens/config';
import { createKafka, kafkaSecurity } from '@flaglens/kafka';
import { runRebuild, TopicTruncatedError } from '@flaglens/pipeline';
import { VERSION_SCHEMA_MIGRATIONS, VERSION_SCHEMA_ROUTINES } from '../../../../migrations';
import { terminalJson, terminalText } from '../terminal-text';

export interface RebuildFlags {
  json?: boolean;
  dropOldAfter?: number;
  /** Print nothing on stdout, only return the result (a caller printing one JSON document of its own). */
  silent?: boolean;
}

/**
 * Runs a rebuild with a progress bar on a terminal (a line every 2 s otherwise), every poison event printed;
 * prints the result (JSON with `--json`). Used by `rebuild` and by `dead-letters redrive`.
 */
export async function rebuildWithProgress(config: AppConfig, flags: RebuildFlags): Promise<unknown> {
  const kafka = createKafka({
    brokers: config.KAFKA_BROKERS,
    security: kafkaSecurity(config),
    clientId: `${config.KAFKA_CLIENT_ID}-rebuild`,
    log: (level, message) => level === 'error' && process.stderr.write(`kafka: ${terminalText(message)}\n`),
  });
  const bar =
    process.stderr.isTTY && !flags.json
      ? new SingleBar(
          {
            format:
              'rebuild {version} |{bar}| {value}/{total} events | {rate}/s | ETA {eta_formatted} | {phase}',
            stream: process.stderr,
          },
          Presets.shades_classic,
        )
      : null;
  const started = Date.now();
  let lastLine = 0;
  const dead: string[] = [];
  try {
    const result = await runRebuild({
      url: config.DATABASE_URL,
      kafka,
      topic: config.KAFKA_TOPIC,
      liveGroupId: config.KAFKA_GROUP_ID,
      projectionMigrations: VERSION_SCHEMA_MIGRATIONS,
      projectionRoutines: VERSION_SCHEMA_ROUTINES,
      concurrency: config.PROJECTOR_CONCURRENCY,
      sessionTimeoutMs: config.KAFKA_SESSION_TIMEOUT_MS,
      allowUnknownTypes: config.ACCEPT_UNKNOWN_EVENT_TYPES,
      maxEventBytes: config.MAX_EVENT_BYTES,
      eventFormat: config.EVENT_FORMAT,
      dropOldAfterMs: (flags.dropOldAfter ?? 30) * 1000,
      onDeadLetter: (d) => {
        // loud: a poison event during a rebuild is reported, never silently skipped
        const line = terminalText(`POISON ${d.topic}[${d.partition}]@${d.offset}: ${d.code}: ${d.reason}`);
        dead.push(line);
        process.stderr.write(`\n${line}\n`);
      },
      onProgress: (p) => {
        const rate = Math.round(p.applied / Math.max(0.001, (Date.now() - started) / 1000));
        if (bar) {
          if (!bar.getTotal())
            bar.start(p.target, p.applied, { version: p.version.schema, rate, phase: p.phase });
          bar.setTotal(p.target);
          bar.update(p.applied, { version: p.version.schema, rate, phase: p.phase });
        } else if (!flags.json && Date.now() - lastLine > 2000) {
          lastLine = Date.now();
          process.stderr.write(
            `rebuild ${p.version.schema}: ${p.applied}/${p.target} events, ${rate}/s, ${p.phase}\n`,
          );
        }
      },
    });
    bar?.stop();
    const summary = { ...result, poison: dead };
    if (flags.silent) return summary;
    if (flags.json) {
      process.stdout.write(terminalJson(summary) + '\n');
    } else {
      process.stdout.write(
        `${result.switched ? 'switched to' : 'stopped building'} ${result.version.schema}` +
          `${result.resumed ? ' (resumed)' : ''}: ${result.events} events in ${result.seconds.toFixed(1)} s` +
          ` (${Math.round(result.events / Math.max(result.seconds, 0.001))}/s)` +
          `${result.previous ? `; ${result.previous.schema} retired${result.switched ? ' and dropped' : ''}` : ''}` +
          `; ${result.deadLetters} poison event(s)${result.deadLetters ? ' (listed above; see `dead-letters list`)' : ''}\n`,
      );
    }
    return summary;
  } catch (e) {
    bar?.stop();
    if (e instanceof TopicTruncatedError) throw new Error(e.message);
    throw e;
  }
}

@Command({
  name: 'rebuild',
  description:
    'Replay the topic from offset 0 into a new version of every projection while the live projector and the api ' +
    'keep running; switch it in atomically once it has caught up; drop the old version afterwards. Resumes an ' +
    'interrupted rebuild.',
})
export class RebuildCommand extends CommandRunner {
  constructor(private readonly config: AppConfig) {
    super();
  }

  async run(_: string[], flags: RebuildFlags): Promise<void> {
    await rebuildWithProgress(this.config, flags);
  }

  @Option({ flags: '--json', description: 'print the result as JSON' })
  parseJson(): boolean {
    return true;
  }

  @Option({
    flags: '--drop-old-after <seconds>',
    description: 'keep the old version readable this long after the switch (default 30)',
  })
  parseDropOldAfter(v: string): number {
    const n = Number(v);
    if (!Number.isFinite(n) || n < 0) throw new Error('--drop-old-after takes a number of seconds');
    return n;
  }
}
