import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FlagEvent } from '@flaglens/contract';

/** The recorded reference installation's fixtures (test/fixtures/reference-sample). */
export const REFERENCE_SAMPLE = join(__dirname, '..', '..', '..', 'test', 'fixtures', 'reference-sample');

/** The events the reference installation recorded (`events.ndjson`), in its order. */
export function referenceSampleEvents(): FlagEvent[] {
  return readFileSync(join(REFERENCE_SAMPLE, 'events.ndjson'), 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as FlagEvent);
}
