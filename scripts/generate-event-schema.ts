/**
 * Writes the JSON Schema of an event value (generated from the DTOs of @flaglens/contract) to
 * libs/contract/schema/feature-event.schema.json. Run with `npm run schema:generate`; commit the result.
 * `libs/contract/src/event-json-schema.spec.ts` fails when the file and the DTOs disagree.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { EVENT_JSON_SCHEMA_PATH, renderEventJsonSchema } from '@flaglens/contract';

const target = resolve(__dirname, '..', EVENT_JSON_SCHEMA_PATH);
mkdirSync(dirname(target), { recursive: true });
writeFileSync(target, renderEventJsonSchema());
process.stdout.write(`wrote ${target}\n`);
