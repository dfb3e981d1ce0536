import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { testEvent } from '@flaglens/testing/test-events';
import { featureTypesProjection } from './feature-types';
import type { ProjectionContext } from './projection';

/**
 * The generic machinery (docs/architecture.md, "Projections"): what runs, keys and publishes any projection.
 * It imports only itself, never a projection's folder; the registry, the migrations' list and the as-of replay
 * are where projections are assembled.
 */
const MACHINERY = [
  'projection',
  'apply-projections',
  'change-feed',
  'keyed-rows',
  'keyed-projection',
  'flag-transitions',
  'event-fields',
  'time',
];

const importsOf = (unit: string): string[] =>
  [...readFileSync(join(__dirname, `${unit}.ts`), 'utf8').matchAll(/from '(\.[^']*)'/g)].map((m) => m[1]);

describe('the projection machinery', () => {
  it.each(MACHINERY)('%s imports no projection', (unit) => {
    for (const used of importsOf(unit)) expect(MACHINERY.map((m) => `./${m}`)).toContain(used);
  });

  it('reports what a keyed projection could not use when no row is keyed, without touching the database', async () => {
    const event = testEvent(7, 'feature-type-updated', { data: { lifetimeDays: 3 } });
    const skipped: [number, string][] = [];
    const context: ProjectionContext = {
      skipped: (id, reason) => skipped.push([id, reason]),
      transitions: [],
      touch: () => undefined,
    };
    const noDatabase = new Proxy({}, { get: () => () => Promise.reject(new Error('no query expected')) });
    await featureTypesProjection.apply(
      noDatabase as never,
      [{ event, knownType: true, topic: null, partition: null, offset: null }],
      context,
    );
    expect(skipped).toEqual([[7, 'feature-type-updated without data.id or a valid lifetimeDays']]);
  });
});
