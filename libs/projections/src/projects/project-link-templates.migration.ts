import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A project's link templates (Unleash 7+ `project_settings.link_templates`, answered as the overview's
 * `linkTemplates`): `[]` until a project-updated carries them. Existing rows start empty; a rebuild replays
 * the project-updated events that set them.
 */
export class ProjectLinkTemplates1763800004500 implements MigrationInterface {
  name = 'ProjectLinkTemplates1763800004500';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE projects ADD COLUMN link_templates json NOT NULL DEFAULT '[]'`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE projects DROP COLUMN link_templates`);
  }
}
