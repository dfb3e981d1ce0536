import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * One row per event of a project, with its exact time, plus per-day counts of those rows (the stats windows
 * are counted at read time: whole days from the buckets, the two edge days exactly from the rows).
 */
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
    // per-UTC-day counts of the same rows: windows sum whole days and count only the two edge days exactly
    await q.query(`
      CREATE TABLE project_activity_daily (
        project text    NOT NULL,
        day     date    NOT NULL,
        n       integer NOT NULL,
        PRIMARY KEY (project, day)
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE project_activity_daily`);
    await q.query(`DROP TABLE project_activity`);
  }
}
