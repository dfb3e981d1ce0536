import { MigrationInterface, QueryRunner } from 'typeorm';

/** Feature types and their lifetimes, seeded as the reference (semantics §3.4). */
export class FeatureTypes1763800000400 implements MigrationInterface {
  name = 'FeatureTypes1763800000400';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE feature_types (id text PRIMARY KEY, lifetime_days integer NULL)`);
    await q.query(`INSERT INTO feature_types (id, lifetime_days) VALUES
      ('release', 40), ('experiment', 40), ('operational', 7), ('kill-switch', NULL), ('permission', NULL)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE feature_types`);
  }
}
