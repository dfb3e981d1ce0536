import { MigrationInterface, QueryRunner } from 'typeorm';

/** TO BE REPLACED BY THE IDENTITY READ MODEL AT MERGE: minimal memberships and favourites. */
export class OverviewProjectAccess1763800001000 implements MigrationInterface {
  name = 'OverviewProjectAccess1763800001000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE overview_project_members (
        project text NOT NULL, user_id bigint NOT NULL, role_id bigint NOT NULL, created_at timestamptz NOT NULL,
        PRIMARY KEY (project, user_id, role_id))`);
    await q.query(`CREATE TABLE overview_project_favorites (
        project text NOT NULL, user_id bigint NOT NULL, PRIMARY KEY (project, user_id))`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE overview_project_members`);
    await q.query(`DROP TABLE overview_project_favorites`);
  }
}
