/*
 * TO BE REPLACED BY THE IDENTITY READ MODEL AT MERGE.
 * At merge: implement `ProjectAccessReader` (libs/projections/src/overview/overview.read-model.ts) over the
 * identity projection's tables (role_user ∪ group_user of group_role, non-root roles, semantics §3.5 and the
 * §5.3 createdAt rules; favourites), bind it in apps/api/src/overview/overview.providers.ts instead of
 * this class, and drop this folder with its migration and its entry in registry.ts / migrations/index.ts.
 */
import type { DataSource } from 'typeorm';
import type { ProjectAccessReader, ProjectAccessSummary } from '../overview/overview.read-model';

export class MinimalProjectAccessReader implements ProjectAccessReader {
  constructor(private readonly db: DataSource) {}

  async summary(projectId: string, userId: number | null, addedSince: Date): Promise<ProjectAccessSummary> {
    const rows: { members: number; added: number; favorite: boolean }[] = await this.db.query(
      `SELECT (SELECT count(DISTINCT user_id)::int FROM overview_project_members WHERE project = $1) AS members,
              (SELECT count(DISTINCT user_id)::int FROM overview_project_members
                WHERE project = $1 AND created_at >= $2) AS added,
              EXISTS (SELECT 1 FROM overview_project_favorites WHERE project = $1 AND user_id = $3) AS favorite`,
      [projectId, addedSince.toISOString(), userId],
    );
    const r = rows[0];
    return { members: r.members, membersAddedSince: r.added, favorite: userId !== null && r.favorite };
  }
}
