import type { PoolClient } from 'pg';
import type { Projection, ProjectionContext, SourcedEvent } from '../projection';
import { reduceFeatureTypes } from './feature-types.logic';

/** Feature types' lifetimes: every project's health and potentially stale flags read them. */
export class FeatureTypesProjection implements Projection {
  readonly name = 'feature-types';
  readonly writes = ['feature_types'];
  readonly scope = 'instance';

  handles(type: string): boolean {
    return type === 'feature-type-updated';
  }

  async apply(client: PoolClient, events: SourcedEvent[], context: ProjectionContext): Promise<void> {
    const { lifetimes, skipped } = reduceFeatureTypes(events.map((s) => s.event));
    for (const s of skipped) context.skipped(s.eventId, s.reason);
    if (lifetimes.size === 0) return;
    await client.query(
      `INSERT INTO feature_types (id, lifetime_days) SELECT * FROM unnest($1::text[], $2::int[])
       ON CONFLICT (id) DO UPDATE SET lifetime_days = EXCLUDED.lifetime_days`,
      [[...lifetimes.keys()], [...lifetimes.values()]],
    );
  }
}
