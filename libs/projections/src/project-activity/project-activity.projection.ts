import type { PoolClient } from 'pg';
import type { Projection } from '../projection';
import type { SourcedEvent } from '../event-log/event-log.projection';
import { activityRows } from './project-activity.logic';

/**
 * Per-project, per-UTC-day event counts. The exact instants are read from the event log (its project index);
 * only newly stored events reach a projection, so nothing counts twice. Days are cut by Postgres from the
 * stored timestamps (the same rounding as the rows the read side counts), bucket rows locked in one order.
 */
export class ProjectActivityProjection implements Projection {
  readonly name = 'project-activity';

  async apply(client: PoolClient, events: SourcedEvent[]): Promise<void> {
    const rows = activityRows(events.map((s) => s.event));
    if (rows.length === 0) return;
    await client.query(
      `INSERT INTO project_activity_daily (project, day, n)
       SELECT project, (created_at AT TIME ZONE 'UTC')::date, count(*)
         FROM unnest($1::text[], $2::timestamptz[]) AS r (project, created_at)
        GROUP BY 1, 2 ORDER BY 1, 2
       ON CONFLICT (project, day) DO UPDATE SET n = project_activity_daily.n + EXCLUDED.n`,
      [rows.map((r) => r.project), rows.map((r) => r.createdAt)],
    );
  }
}
