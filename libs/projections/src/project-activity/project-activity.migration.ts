import { MigrationInterface, QueryRunner } from 'typeorm';

/** One row per event of a project, with its exact time (the stats windows count them at read time). */
export class ProjectActivity1763800000700 implements MigrationInterface {
  name = 'ProjectActivity1763800000700';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE project_activity (
        project    text        NOT NULL,
        created_at timestamptz NOT NULL,
        event_id   bigint      NOT NULL,
        PRIMARY KEY (project, created_at, event_id)
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE project_activity`);
  }
}
