import type { PoolClient } from 'pg';
import type { Projection, ProjectionReport } from '../projection';
import type { SourcedEvent } from '../event-log/event-log.projection';
import { reduceFeatureTypes } from './feature-types.logic';

export class FeatureTypesProjection implements Projection {
  readonly name = 'feature-types';

  async apply(client: PoolClient, events: SourcedEvent[], report: ProjectionReport): Promise<void> {
    const { lifetimes, skipped } = reduceFeatureTypes(events.map((s) => s.event));
    for (const s of skipped) report.skipped(s.eventId, s.reason);
    if (lifetimes.size === 0) return;
    await client.query(
      `INSERT INTO feature_types (id, lifetime_days) SELECT * FROM unnest($1::text[], $2::int[])
       ON CONFLICT (id) DO UPDATE SET lifetime_days = EXCLUDED.lifetime_days`,
      [[...lifetimes.keys()], [...lifetimes.values()]],
    );
  }
}
