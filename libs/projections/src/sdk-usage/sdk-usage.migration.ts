import { MigrationInterface, QueryRunner } from 'typeorm';

/** Flags and projects an SDK has reported (onboarding). */
export class SdkUsage1763800000900 implements MigrationInterface {
  name = 'SdkUsage1763800000900';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE flag_sdk_usage (
        feature_name text PRIMARY KEY, first_seen_at timestamptz NOT NULL, last_seen_at timestamptz NOT NULL)`);
    await q.query(`CREATE TABLE project_sdk_usage (
        project text PRIMARY KEY, first_seen_at timestamptz NOT NULL, last_seen_at timestamptz NOT NULL)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE flag_sdk_usage`);
    await q.query(`DROP TABLE project_sdk_usage`);
  }
}
