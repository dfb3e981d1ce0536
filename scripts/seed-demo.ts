/* Publishes the demo history when the topic is empty (used by `npm start`). */
import 'reflect-metadata';
import { join } from 'node:path';
import { loadConfigOrExit } from '@flaglens/config';
import { createKafka, topicWatermarks, kafkaSecurity } from '@flaglens/kafka';
import { publishNdjson } from '../apps/cli/src/ndjson-publisher';
import { repoRoot } from './repo-root';

// from the repository's root: this runs compiled, from dist/scripts/ (npm start)
const DEMO = join(repoRoot(__dirname), 'test', 'fixtures', 'reference-sample');

async function main(): Promise<void> {
  const config = loadConfigOrExit();
  const kafka = createKafka({
    brokers: config.KAFKA_BROKERS,
    clientId: 'flaglens-demo',
    security: kafkaSecurity(config),
  });
  const marks = await topicWatermarks(kafka, config.KAFKA_TOPIC);
  const existing = marks.reduce((n, p) => n + p.high - p.low, 0);
  if (existing > 0) {
    console.log(
      `[demo] topic ${config.KAFKA_TOPIC} already holds ${existing} message(s); not publishing the demo history`,
    );
    return;
  }
  for (const file of ['events.ndjson', 'sdk-events.ndjson']) {
    const s = await publishNdjson(kafka, join(DEMO, file), {
      topic: config.KAFKA_TOPIC,
      allowUnknownTypes: true,
    });
    console.log(`[demo] published ${s.sent} event(s) from the reference sample's ${file}`);
  }
}

main().catch((e) => {
  console.error(`[demo] failed: ${(e as Error).message}`);
  process.exit(1);
});
