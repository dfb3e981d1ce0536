import { MigrationInterface, QueryRunner } from 'typeorm';

/** Flag state: project, type, stale, created, archived, deleted (projection `flag-state`). */
export class FlagState1763800000200 implements MigrationInterface {
  name = 'FlagState1763800000200';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE flag_state (
        name        text        PRIMARY KEY,
        project     text        NOT NULL,
        type        text        NOT NULL,
        stale       boolean     NOT NULL,
        created_at  timestamptz NOT NULL,
        archived_at timestamptz NULL,
        deleted     boolean     NOT NULL
      )`);
    // the overview's reads: every live flag of a project
    await q.query(
      `CREATE INDEX flag_state_project_idx ON flag_state (project) INCLUDE (type, stale, created_at, archived_at)
        WHERE NOT deleted`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE flag_state`);
  }
}
