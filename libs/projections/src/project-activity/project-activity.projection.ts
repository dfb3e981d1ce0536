import type { PoolClient } from 'pg';
import type { Projection } from '../projection';
import type { SourcedEvent } from '../event-log/event-log.projection';
import { activityRows } from './project-activity.logic';

export class ProjectActivityProjection implements Projection {
  readonly name = 'project-activity';

  async apply(client: PoolClient, events: SourcedEvent[]): Promise<void> {
    const rows = activityRows(events.map((s) => s.event));
    if (rows.length === 0) return;
    // only rows actually inserted feed the day buckets, so a replayed event can never count twice
    await client.query(
      `WITH ins AS (
         INSERT INTO project_activity (project, created_at, event_id)
         SELECT * FROM unnest($1::text[], $2::timestamptz[], $3::bigint[]) ON CONFLICT DO NOTHING
         RETURNING project, created_at)
       INSERT INTO project_activity_daily (project, day, n)
       SELECT project, (created_at AT TIME ZONE 'UTC')::date AS day, count(*) FROM ins GROUP BY 1, 2 ORDER BY 1, 2
       ON CONFLICT (project, day) DO UPDATE SET n = project_activity_daily.n + EXCLUDED.n`,
      [rows.map((r) => r.project), rows.map((r) => r.createdAt), rows.map((r) => r.eventId)],
    );
  }
}
