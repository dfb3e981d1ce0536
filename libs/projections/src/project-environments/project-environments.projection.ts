import type { PoolClient } from 'pg';
import type { Projection, ProjectionContext, SourcedEvent } from '../projection';
import { loadRows, writeRows, type KeyedTable } from '../keyed-rows';
import { PROJECT_ENV_TYPES, reduceProjectEnvs, type ProjectEnvRow } from './project-environments.logic';

/** A project's links to environments: several rows per project, replaced together. */
const PROJECT_ENVIRONMENTS_TABLE: KeyedTable<ProjectEnvRow> = {
  table: 'project_environments',
  many: true,
  columns: [
    { field: 'project', column: 'project', type: 'text' },
    { field: 'environment', column: 'environment', type: 'text' },
    { field: 'linked', column: 'linked', type: 'boolean' },
    { field: 'defaultStrategy', column: 'default_strategy', type: 'json' },
  ],
};

export class ProjectEnvironmentsProjection implements Projection {
  readonly name = 'project-environments';
  readonly writes = ['project_environments'];
  readonly scope = 'projects';

  handles(type: string): boolean {
    return PROJECT_ENV_TYPES.has(type);
  }

  async apply(client: PoolClient, sourced: SourcedEvent[], context: ProjectionContext): Promise<void> {
    const events = sourced.map((s) => s.event);
    const ids = [...new Set(events.map((e) => e.project).filter((p): p is string => !!p))];
    const current = [...(await loadRows(client, PROJECT_ENVIRONMENTS_TABLE, ids)).values()].flat();
    const { projects, skipped } = reduceProjectEnvs(current, events);
    for (const s of skipped) context.skipped(s.eventId, s.reason);
    if (projects.size === 0) return;
    await writeRows(client, PROJECT_ENVIRONMENTS_TABLE, [...projects.values()].flat(), [...projects.keys()]);
  }
}
