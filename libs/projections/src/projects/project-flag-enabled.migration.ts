import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Whether any `feature-environment-enabled` event named the project (`projects.flag_enabled`): Unleash 8's
 * onboarding answers `onboarded` only then (overview.logic.ts `onboardingStatus`). Kept by the projects projection,
 * so the overview no longer looks for one in the event log: that search read the log's enable events one by one
 * (at 10 million events, 320,000 rows and 3.7 s for a project with few of them). Existing rows are filled from
 * the log's enable events once.
 */
export class ProjectFlagEnabled1763800005000 implements MigrationInterface {
  name = 'ProjectFlagEnabled1763800005000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE projects ADD COLUMN flag_enabled boolean NOT NULL DEFAULT false`);
    await q.query(
      `UPDATE projects SET flag_enabled = true
        WHERE id IN (SELECT DISTINCT project FROM event_log
                      WHERE type = 'feature-environment-enabled' AND project IS NOT NULL)`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE projects DROP COLUMN flag_enabled`);
  }
}
