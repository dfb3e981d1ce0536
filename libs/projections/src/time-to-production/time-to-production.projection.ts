import type { PoolClient } from 'pg';
import type { Projection } from '../projection';
import type { SourcedEvent } from '../event-log/event-log.projection';
import { enableRows } from './time-to-production.logic';

export class TimeToProductionProjection implements Projection {
  readonly name = 'time-to-production';

  async apply(client: PoolClient, events: SourcedEvent[]): Promise<void> {
    const rows = enableRows(events.map((s) => s.event));
    if (rows.length === 0) return;
    await client.query(
      `INSERT INTO flag_env_enables (feature_name, environment, enabled_at, event_id)
       SELECT * FROM unnest($1::text[], $2::text[], $3::timestamptz[], $4::bigint[]) ON CONFLICT DO NOTHING`,
      [
        rows.map((r) => r.featureName),
        rows.map((r) => r.environment),
        rows.map((r) => r.enabledAt),
        rows.map((r) => r.eventId),
      ],
    );
  }
}
