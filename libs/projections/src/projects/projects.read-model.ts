import type { ReadPool } from '@flaglens/persistence';

/** Reads of the projects' current state (projects). */
export class ProjectsReadModel {
  constructor(private readonly db: ReadPool) {}

  /** The projects that exist, are not archived and are not `hidden`, by id (the console's project list). */
  async visibleProjects(hidden: string[]): Promise<{ id: string; name: string | null }[]> {
    const r = await this.db
      .pool()
      .query<{ id: string; name: string | null }>(
        `SELECT id, name FROM projects WHERE exists AND archived_at IS NULL AND id <> ALL($1::text[]) ORDER BY id`,
        [hidden],
      );
    return r.rows;
  }
}
