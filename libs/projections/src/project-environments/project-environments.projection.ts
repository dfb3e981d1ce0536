import type { PoolClient } from 'pg';
import type { Projection, ProjectionReport } from '../projection';
import type { SourcedEvent } from '../event-log/event-log.projection';
import { PROJECT_ENV_TYPES, reduceProjectEnvs, type ProjectEnvRow } from './project-environments.logic';

export class ProjectEnvironmentsProjection implements Projection {
  readonly name = 'project-environments';

  async apply(client: PoolClient, sourced: SourcedEvent[], report: ProjectionReport): Promise<void> {
    const events = sourced.map((s) => s.event).filter((e) => PROJECT_ENV_TYPES.has(e.type));
    if (events.length === 0) return;
    const ids = [...new Set(events.map((e) => e.project).filter((p): p is string => !!p))];
    const r = await client.query<{
      project: string;
      environment: string;
      linked: boolean | null;
      ds: string | null;
    }>(
      `SELECT project, environment, linked, default_strategy::text AS ds FROM project_environments WHERE project = ANY($1)`,
      [ids],
    );
    const current: ProjectEnvRow[] = r.rows.map((x) => ({
      project: x.project,
      environment: x.environment,
      linked: x.linked,
      defaultStrategy: x.ds === null ? null : JSON.parse(x.ds),
    }));
    const { projects, skipped } = reduceProjectEnvs(current, events);
    for (const s of skipped) report.skipped(s.eventId, s.reason);
    if (projects.size === 0) return;
    await client.query(`DELETE FROM project_environments WHERE project = ANY($1)`, [[...projects.keys()]]);
    const rows = [...projects.values()].flat();
    if (rows.length === 0) return;
    await client.query(
      `INSERT INTO project_environments (project, environment, linked, default_strategy)
       SELECT * FROM unnest($1::text[], $2::text[], $3::boolean[], $4::json[])`,
      [
        rows.map((x) => x.project),
        rows.map((x) => x.environment),
        rows.map((x) => x.linked),
        rows.map((x) => (x.defaultStrategy === null ? null : JSON.stringify(x.defaultStrategy))),
      ],
    );
  }
}
