import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Environment updates per (UTC day, environment, project): the report leaves out the updates of private
 * projects the caller may not see (`''` for events without a project). Filled from the event log with the
 * projection's own rule (events of a known type that carry an environment), then the per-(day, environment)
 * table goes.
 */
export class InsightsEnvUpdatesByProject1763800003300 implements MigrationInterface {
  name = 'InsightsEnvUpdatesByProject1763800003300';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE insights_env_project_updates (
        day         date   NOT NULL,
        environment text   NOT NULL,
        project     text   NOT NULL,
        n           bigint NOT NULL,
        PRIMARY KEY (day, environment, project)
      )`);
    await q.query(`
      INSERT INTO insights_env_project_updates (day, environment, project, n)
      SELECT (created_at AT TIME ZONE 'UTC')::date, environment, COALESCE(project, ''), count(*)
        FROM event_log WHERE known_type AND environment IS NOT NULL AND environment <> ''
       GROUP BY 1, 2, 3`);
    await q.query(`DROP TABLE insights_env_updates`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE insights_env_updates (
        day         date   NOT NULL,
        environment text   NOT NULL,
        n           bigint NOT NULL,
        PRIMARY KEY (day, environment)
      )`);
    await q.query(`
      INSERT INTO insights_env_updates SELECT day, environment, sum(n) FROM insights_env_project_updates
       GROUP BY 1, 2`);
    await q.query(`DROP TABLE insights_env_project_updates`);
  }
}
