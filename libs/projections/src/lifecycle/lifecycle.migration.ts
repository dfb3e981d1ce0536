import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Flag lifecycle (projection `lifecycle`): what each flag's own events say (start, completion, archive,
 * enable spans) and where SDKs reported it (the earliest and latest report per flag and environment).
 */
export class Lifecycle1763800004620 implements MigrationInterface {
  name = 'Lifecycle1763800004620';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE lifecycle_flags (
        name             text        PRIMARY KEY,
        started_at       timestamptz NOT NULL,
        completed_at     timestamptz NULL,
        completed_status text        NULL,
        archived_at      timestamptz NULL,
        deleted          boolean     NOT NULL,
        enables          jsonb       NOT NULL
      )`);
    await q.query(`
      CREATE TABLE lifecycle_sightings (
        feature_name text        NOT NULL,
        environment  text        NOT NULL,
        first_at     timestamptz NOT NULL,
        last_at      timestamptz NOT NULL,
        PRIMARY KEY (feature_name, environment)
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE lifecycle_sightings`);
    await q.query(`DROP TABLE lifecycle_flags`);
  }
}
