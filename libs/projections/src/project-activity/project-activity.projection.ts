import type { PoolClient } from 'pg';
import type { Projection, SourcedEvent } from '../projection';
import { dailyCounts } from './project-activity.logic';

/**
 * Per-project, per-UTC-day event counts. The exact instants are read from the event log (its project index);
 * only newly stored events reach a projection, so nothing counts twice. A batch is counted per (project, UTC
 * day) before it is sent (`dailyCounts`: the day of the normalised `createdAt`, the very instant the event log
 * stores, so the read side's exact rows agree); bucket rows are locked in one order.
 */
export class ProjectActivityProjection implements Projection {
  readonly name = 'project-activity';
  readonly writes = ['project_activity_daily'];
  readonly scope = 'projects';

  handles(): boolean {
    return true;
  }

  async apply(client: PoolClient, events: SourcedEvent[]): Promise<void> {
    const counts = dailyCounts(events.map((s) => s.event));
    if (counts.length === 0) return;
    // rows in (project, day) order, so concurrent batches lock them in the same order
    await client.query(
      `INSERT INTO project_activity_daily (project, day, n)
       SELECT project, day, n FROM unnest($1::text[], $2::date[], $3::int[]) AS r (project, day, n)
        ORDER BY 1, 2
       ON CONFLICT (project, day) DO UPDATE SET n = project_activity_daily.n + EXCLUDED.n`,
      [counts.map((c) => c.project), counts.map((c) => c.day), counts.map((c) => c.n)],
    );
  }
}
