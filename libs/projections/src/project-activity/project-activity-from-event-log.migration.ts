import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Project activity without a row per event: the event log already holds every event with its project and
 * exact time, so an index on it answers the two exact edge days and the next window edge; the per-day counts
 * stay. Saves a second per-event write (heap row + primary key) in every batch.
 */
export class ProjectActivityFromEventLog1763800003000 implements MigrationInterface {
  name = 'ProjectActivityFromEventLog1763800003000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      `CREATE INDEX event_log_project_idx ON event_log (project, created_at) WHERE project IS NOT NULL`,
    );
    await q.query(`DROP TABLE project_activity`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE project_activity (
        project    text        NOT NULL,
        created_at timestamptz NOT NULL,
        event_id   bigint      NOT NULL,
        PRIMARY KEY (project, created_at, event_id)
      )`);
    await q.query(`
      INSERT INTO project_activity (project, created_at, event_id)
      SELECT project, created_at, id FROM event_log WHERE project IS NOT NULL AND project <> ''`);
    await q.query(`DROP INDEX event_log_project_idx`);
  }
}
