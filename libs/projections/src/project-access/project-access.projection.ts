import type { PoolClient } from 'pg';
import type { Projection, ProjectionReport } from '../projection';
import type { SourcedEvent } from '../event-log/event-log.projection';
import { PROJECT_ACCESS_TYPES, reduceProjectAccess } from './project-access.logic';

/** TO BE REPLACED BY THE IDENTITY READ MODEL AT MERGE. */
export class ProjectAccessProjection implements Projection {
  readonly name = 'overview-project-access';

  async apply(client: PoolClient, sourced: SourcedEvent[], report: ProjectionReport): Promise<void> {
    const events = sourced.map((s) => s.event).filter((e) => PROJECT_ACCESS_TYPES.has(e.type));
    if (events.length === 0) return;
    const ids = [...new Set(events.map((e) => e.project).filter((p): p is string => !!p))];
    const m = await client.query<{ project: string; user_id: string; role_id: string; created_at: string }>(
      `SELECT project, user_id, role_id, to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS created_at
         FROM overview_project_members WHERE project = ANY($1)`,
      [ids],
    );
    const f = await client.query<{ project: string; user_id: string }>(
      `SELECT project, user_id FROM overview_project_favorites WHERE project = ANY($1)`,
      [ids],
    );
    const { projects, skipped } = reduceProjectAccess(
      m.rows.map((r) => ({
        project: r.project,
        userId: Number(r.user_id),
        roleId: Number(r.role_id),
        createdAt: r.created_at,
      })),
      f.rows.map((r) => ({ project: r.project, userId: Number(r.user_id) })),
      events,
    );
    for (const s of skipped) report.skipped(s.eventId, s.reason);
    const touched = [...projects.keys()];
    if (touched.length === 0) return;
    await client.query(`DELETE FROM overview_project_members WHERE project = ANY($1)`, [touched]);
    await client.query(`DELETE FROM overview_project_favorites WHERE project = ANY($1)`, [touched]);
    const members = [...projects.values()].flatMap((x) => x.members);
    const favorites = [...projects.values()].flatMap((x) => x.favorites);
    if (members.length > 0)
      await client.query(
        `INSERT INTO overview_project_members (project, user_id, role_id, created_at)
         SELECT * FROM unnest($1::text[], $2::bigint[], $3::bigint[], $4::timestamptz[])`,
        [
          members.map((x) => x.project),
          members.map((x) => x.userId),
          members.map((x) => x.roleId),
          members.map((x) => x.createdAt),
        ],
      );
    if (favorites.length > 0)
      await client.query(
        `INSERT INTO overview_project_favorites (project, user_id) SELECT * FROM unnest($1::text[], $2::bigint[])`,
        [favorites.map((x) => x.project), favorites.map((x) => x.userId)],
      );
  }
}
