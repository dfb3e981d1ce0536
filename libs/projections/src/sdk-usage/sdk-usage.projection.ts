import type { PoolClient } from 'pg';
import type { Projection, ProjectionReport } from '../projection';
import type { SourcedEvent } from '../event-log/event-log.projection';
import { sdkUsage, type SdkSeen } from './sdk-usage.logic';

async function upsert(
  client: PoolClient,
  table: string,
  key: string,
  m: Map<string, SdkSeen>,
): Promise<void> {
  if (m.size === 0) return;
  const keys = [...m.keys()].sort();
  await client.query(
    `INSERT INTO ${table} (${key}, first_seen_at, last_seen_at)
     SELECT * FROM unnest($1::text[], $2::timestamptz[], $3::timestamptz[]) AS t(k, f, l) ORDER BY k
     ON CONFLICT (${key}) DO UPDATE SET first_seen_at = LEAST(${table}.first_seen_at, EXCLUDED.first_seen_at),
                                         last_seen_at = GREATEST(${table}.last_seen_at, EXCLUDED.last_seen_at)`,
    [keys, keys.map((k) => m.get(k)!.first), keys.map((k) => m.get(k)!.last)],
  );
}

export class SdkUsageProjection implements Projection {
  readonly name = 'sdk-usage';

  async apply(client: PoolClient, events: SourcedEvent[], report: ProjectionReport): Promise<void> {
    const { flags, projects, skipped } = sdkUsage(events.map((s) => s.event));
    for (const s of skipped) report.skipped(s.eventId, s.reason);
    await upsert(client, 'flag_sdk_usage', 'feature_name', flags);
    await upsert(client, 'project_sdk_usage', 'project', projects);
  }
}
