import type { PoolClient } from 'pg';
import type { Projection, ProjectionReport } from '../projection';
import type { SourcedEvent } from '../event-log/event-log.projection';
import { FLAG_STATE_TYPES, reduceFlagState, type FlagRow } from './flag-state.logic';

export class FlagStateProjection implements Projection {
  readonly name = 'flag-state';

  async apply(client: PoolClient, events: SourcedEvent[], report: ProjectionReport): Promise<void> {
    const relevant = events.map((s) => s.event).filter((e) => FLAG_STATE_TYPES.has(e.type) && e.featureName);
    if (relevant.length === 0) return;
    const names = [...new Set(relevant.map((e) => e.featureName!))];
    const r = await client.query<{
      name: string;
      project: string;
      type: string;
      stale: boolean;
      created_at: string;
      archived_at: string | null;
      deleted: boolean;
    }>(
      `SELECT name, project, type, stale, deleted,
              to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS created_at,
              to_char(archived_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS archived_at
         FROM flag_state WHERE name = ANY($1) FOR UPDATE`,
      [names],
    );
    const current = new Map<string, FlagRow>(
      r.rows.map((x) => [
        x.name,
        {
          name: x.name,
          project: x.project,
          type: x.type,
          stale: x.stale,
          createdAt: x.created_at,
          archivedAt: x.archived_at,
          deleted: x.deleted,
        },
      ]),
    );
    const { rows, skipped } = reduceFlagState(current, relevant);
    for (const s of skipped) report.skipped(s.eventId, s.reason);
    if (rows.length === 0) return;
    await client.query(
      `INSERT INTO flag_state (name, project, type, stale, created_at, archived_at, deleted)
       SELECT name, project, type, stale, "createdAt", "archivedAt", deleted
         FROM json_to_recordset($1::json) AS t(name text, project text, type text, stale boolean,
              "createdAt" timestamptz, "archivedAt" timestamptz, deleted boolean)
       ON CONFLICT (name) DO UPDATE SET project = EXCLUDED.project, type = EXCLUDED.type, stale = EXCLUDED.stale,
              created_at = EXCLUDED.created_at, archived_at = EXCLUDED.archived_at, deleted = EXCLUDED.deleted`,
      [JSON.stringify(rows)],
    );
  }
}
