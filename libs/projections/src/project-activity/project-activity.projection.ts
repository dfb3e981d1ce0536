import type { PoolClient } from 'pg';
import type { Projection } from '../projection';
import type { SourcedEvent } from '../event-log/event-log.projection';
import { activityRows } from './project-activity.logic';

export class ProjectActivityProjection implements Projection {
  readonly name = 'project-activity';

  async apply(client: PoolClient, events: SourcedEvent[]): Promise<void> {
    const rows = activityRows(events.map((s) => s.event));
    if (rows.length === 0) return;
    await client.query(
      `INSERT INTO project_activity (project, created_at, event_id)
       SELECT * FROM unnest($1::text[], $2::timestamptz[], $3::bigint[]) ON CONFLICT DO NOTHING`,
      [rows.map((r) => r.project), rows.map((r) => r.createdAt), rows.map((r) => r.eventId)],
    );
  }
}
