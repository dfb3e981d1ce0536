import { MigrationInterface, QueryRunner } from 'typeorm';

/** Project ↔ environment links with their default strategy; seeded: default ↔ development, production. */
export class ProjectEnvironments1763800000600 implements MigrationInterface {
  name = 'ProjectEnvironments1763800000600';

  async up(q: QueryRunner): Promise<void> {
    // json (not jsonb): the default strategy is returned with its keys in the order they were sent
    await q.query(`
      CREATE TABLE project_environments (
        project          text    NOT NULL,
        environment      text    NOT NULL,
        linked           boolean NULL,
        default_strategy json    NULL,
        PRIMARY KEY (project, environment)
      )`);
    await q.query(`INSERT INTO project_environments (project, environment, linked) VALUES
      ('default', 'development', true), ('default', 'production', true)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE project_environments`);
  }
}
