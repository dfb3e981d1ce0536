import type { PoolClient } from 'pg';
import type { Projection, ProjectionReport } from '../projection';
import type { SourcedEvent } from '../event-log/event-log.projection';
import { ENVIRONMENT_TYPES, reduceEnvironments, type EnvironmentRow } from './environments.logic';

export class EnvironmentsProjection implements Projection {
  readonly name = 'environments';

  async apply(client: PoolClient, events: SourcedEvent[], report: ProjectionReport): Promise<void> {
    const relevant = events.map((s) => s.event).filter((e) => ENVIRONMENT_TYPES.has(e.type));
    if (relevant.length === 0) return;
    const r = await client.query<{
      name: string;
      type: string;
      sort_order: number;
      enabled: boolean;
      deleted: boolean;
      created_at: string | null;
    }>(
      `SELECT name, type, sort_order, enabled, deleted,
              to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS created_at
         FROM environments FOR UPDATE`,
    );
    const current = new Map<string, EnvironmentRow>(
      r.rows.map((x) => [
        x.name,
        {
          name: x.name,
          type: x.type,
          sortOrder: x.sort_order,
          enabled: x.enabled,
          deleted: x.deleted,
          createdAt: x.created_at,
        },
      ]),
    );
    const { rows, skipped } = reduceEnvironments(current, relevant);
    for (const s of skipped) report.skipped(s.eventId, s.reason);
    if (rows.length === 0) return;
    await client.query(
      `INSERT INTO environments (name, type, sort_order, enabled, deleted, created_at)
       SELECT name, type, "sortOrder", enabled, deleted, "createdAt"
         FROM json_to_recordset($1::json) AS t(name text, type text, "sortOrder" int, enabled boolean,
              deleted boolean, "createdAt" timestamptz)
       ON CONFLICT (name) DO UPDATE SET type = EXCLUDED.type, sort_order = EXCLUDED.sort_order,
              enabled = EXCLUDED.enabled, deleted = EXCLUDED.deleted, created_at = EXCLUDED.created_at`,
      [JSON.stringify(rows)],
    );
  }
}
