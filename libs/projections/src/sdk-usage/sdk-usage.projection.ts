import type { PoolClient } from 'pg';
import type { FlagEvent } from '@flaglens/contract';
import type { Projection, ProjectionContext, SourcedEvent } from '../projection';
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

/** SDK sightings of flags (the flags named in metrics reports) and of projects (registrations with a project). */
export class SdkUsageProjection implements Projection {
  readonly name = 'sdk-usage';
  readonly writes = ['flag_sdk_usage', 'project_sdk_usage'];
  readonly scope = 'flags';

  handles(type: string): boolean {
    return type === 'client-metrics' || type === 'client-register';
  }

  /** The flags a report names (`data.bucket.toggles`); its projects are touched in `apply`. */
  keysOf(e: FlagEvent): readonly string[] {
    return [...sdkUsage([e]).flags.keys()];
  }

  async apply(client: PoolClient, events: SourcedEvent[], context: ProjectionContext): Promise<void> {
    const { flags, projects, skipped } = sdkUsage(events.map((s) => s.event));
    for (const s of skipped) context.skipped(s.eventId, s.reason);
    await upsert(client, 'flag_sdk_usage', 'feature_name', flags);
    await upsert(client, 'project_sdk_usage', 'project', projects);
    context.touch('projects', [...projects.keys()]);
  }
}
