import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The pipeline's units, from the top of a batch's path to the bottom (docs/architecture.md, "One event's write
 * path"): each may use only the units after it, so calls go one way (consumer -> grouping -> applier ->
 * transaction and guard -> projections) and nothing below calls back up.
 */
const ORDER = [
  'rebuild',
  'deferred-indexes',
  'partition-consumer',
  'partition-control',
  'fetched-batch',
  'kafka-commits',
  'partition-backoff',
  'batch-grouping',
  'redrive',
  'batch-applier',
  'dead-letters',
  'batch-transaction',
  'classify-messages',
  'stage-timing',
  'stage-cost',
];

const units = readdirSync(__dirname)
  .filter((f) => f.endsWith('.ts') && !/\.(int-)?spec\.ts$/.test(f) && f !== 'index.ts')
  .map((f) => f.replace(/\.ts$/, ''));

const importsOf = (unit: string): string[] =>
  [...readFileSync(join(__dirname, `${unit}.ts`), 'utf8').matchAll(/from '\.\/([a-z-]+)'/g)].map((m) => m[1]);

describe('the pipeline calls one way', () => {
  it('places every unit', () => {
    expect([...units].sort()).toEqual([...ORDER].sort());
  });

  it.each(ORDER)('%s uses only the units below it', (unit) => {
    const below = ORDER.slice(ORDER.indexOf(unit) + 1);
    for (const used of importsOf(unit)) expect(below).toContain(used);
  });
});
