import { Command, CommandRunner, Option } from 'nest-commander';
import { SingleBar, Presets } from 'cli-progress';
import { AppConfig } from '@flaglens/config';
import { createKafka, kafkaSecurity } from '@flaglens/kafka';
import { publishNdjson } from '../ndjson-publisher';
import { terminalJson, terminalText } from '../terminal-text';

interface PublishFlags {
  topic?: string;
  raw?: boolean;
  json?: boolean;
}

@Command({
  name: 'publish',
  arguments: '<file>',
  description:
    'Produce the events of an NDJSON file (or - for stdin) to the topic, keyed by featureName/project/instance',
})
export class PublishCommand extends CommandRunner {
  constructor(private readonly config: AppConfig) {
    super();
  }

  async run([file]: string[], flags: PublishFlags): Promise<void> {
    const topic = flags.topic ?? this.config.KAFKA_TOPIC;
    const kafka = createKafka({
      brokers: this.config.KAFKA_BROKERS,
      security: kafkaSecurity(this.config),
      clientId: `${this.config.KAFKA_CLIENT_ID}-cli`,
      log: (level, message) => level === 'error' && process.stderr.write(`kafka: ${terminalText(message)}\n`),
    });
    const admin = kafka.admin();
    await admin.connect();
    const topics = await admin.listTopics().finally(() => admin.disconnect());
    if (!topics.includes(topic)) {
      throw new Error(
        `topic ${topic} does not exist on ${this.config.KAFKA_BROKERS} (npm run infra:up creates ${this.config.KAFKA_TOPIC})`,
      );
    }
    const bar =
      process.stderr.isTTY && !flags.json
        ? new SingleBar(
            { format: 'publishing |{bar}| {value} sent, {rejected} rejected', stream: process.stderr },
            Presets.shades_classic,
          )
        : null;
    bar?.start(0, 0, { rejected: 0 });
    const summary = await publishNdjson(kafka, file, {
      topic,
      raw: flags.raw,
      allowUnknownTypes: this.config.ACCEPT_UNKNOWN_EVENT_TYPES,
      maxBytes: this.config.MAX_EVENT_BYTES,
      onProgress: (sent, rejected) => {
        bar?.setTotal(sent);
        bar?.update(sent, { rejected });
      },
    });
    bar?.stop();
    if (flags.json) {
      process.stdout.write(terminalJson(summary) + '\n');
    } else {
      process.stdout.write(
        `sent ${summary.sent} event(s) to ${flags.topic ?? this.config.KAFKA_TOPIC}; rejected ${summary.rejected.length} line(s)\n`,
      );
      for (const r of summary.rejected.slice(0, 50))
        process.stdout.write(`  line ${r.line}: ${terminalText(r.reason)}\n`);
      if (summary.rejected.length > 50)
        process.stdout.write(`  ... and ${summary.rejected.length - 50} more\n`);
    }
    if (summary.rejected.length > 0 && !flags.raw) process.exitCode = 2;
  }

  @Option({ flags: '--topic <topic>', description: 'topic to produce to (default: KAFKA_TOPIC)' })
  parseTopic(v: string): string {
    return v;
  }

  @Option({
    flags: '--raw',
    description: 'send invalid lines too (they will be dead-lettered by the projector)',
  })
  parseRaw(): boolean {
    return true;
  }

  @Option({ flags: '--json', description: 'print the summary as JSON' })
  parseJson(): boolean {
    return true;
  }
}
