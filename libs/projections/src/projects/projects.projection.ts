import type { PoolClient } from 'pg';
import type { Projection, ProjectionReport } from '../projection';
import type { SourcedEvent } from '../event-log/event-log.projection';
import {
  latestEventPerProject,
  PROJECT_SETTING_TYPES,
  reduceProjects,
  type ProjectRow,
} from './projects.logic';

const TS = (c: string) => `to_char(${c} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

export class ProjectsProjection implements Projection {
  readonly name = 'projects';

  async apply(client: PoolClient, sourced: SourcedEvent[], report: ProjectionReport): Promise<void> {
    const events = sourced.map((s) => s.event);
    const latest = latestEventPerProject(events);
    if (latest.size === 0) return;
    // 1. every project named: a row (placeholder if new) and the latest event time (max: order-independent).
    //    Sorted, so concurrent partitions lock rows in the same order.
    const ids = [...latest.keys()].sort();
    await client.query(
      `INSERT INTO projects (id, last_event_at)
       SELECT id, at FROM unnest($1::text[], $2::timestamptz[]) AS t(id, at) ORDER BY id
       ON CONFLICT (id) DO UPDATE SET last_event_at = GREATEST(projects.last_event_at, EXCLUDED.last_event_at)`,
      [ids, ids.map((id) => latest.get(id))],
    );
    // 2. settings from the project's own events (rows already locked by step 1)
    const relevant = events.filter((e) => PROJECT_SETTING_TYPES.has(e.type));
    if (relevant.length === 0) return;
    const r = await client.query<Record<string, unknown>>(
      `SELECT id, exists, name, description, mode, default_stickiness AS "defaultStickiness",
              feature_limit AS "featureLimit", naming_pattern AS "namingPattern", naming_example AS "namingExample",
              naming_description AS "namingDescription", ${TS('created_at')} AS "createdAt",
              ${TS('archived_at')} AS "archivedAt", link_enabled_envs AS "linkEnabledEnvs"
         FROM projects WHERE id = ANY($1)`,
      [ids],
    );
    const current = new Map(r.rows.map((x) => [x.id as string, x as unknown as ProjectRow]));
    const { rows, skipped } = reduceProjects(current, relevant);
    for (const s of skipped) report.skipped(s.eventId, s.reason);
    if (rows.length === 0) return;
    await client.query(
      `UPDATE projects p SET exists = t.exists, name = t.name, description = t.description, mode = t.mode,
              default_stickiness = t."defaultStickiness", feature_limit = t."featureLimit",
              naming_pattern = t."namingPattern", naming_example = t."namingExample",
              naming_description = t."namingDescription", created_at = COALESCE(t."createdAt", p.created_at),
              archived_at = t."archivedAt", link_enabled_envs = t."linkEnabledEnvs"
         FROM json_to_recordset($1::json) AS t(id text, exists boolean, name text, description text, mode text,
              "defaultStickiness" text, "featureLimit" int, "namingPattern" text, "namingExample" text,
              "namingDescription" text, "createdAt" timestamptz, "archivedAt" timestamptz, "linkEnabledEnvs" boolean)
        WHERE p.id = t.id`,
      [JSON.stringify(rows)],
    );
  }
}
