import { MigrationInterface, QueryRunner } from 'typeorm';

/** Every environment enable of every flag, with its time (time to production is resolved at read time). */
export class TimeToProduction1763800000800 implements MigrationInterface {
  name = 'TimeToProduction1763800000800';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE flag_env_enables (
        feature_name text        NOT NULL,
        environment  text        NOT NULL,
        enabled_at   timestamptz NOT NULL,
        event_id     bigint      NOT NULL,
        PRIMARY KEY (feature_name, environment, enabled_at, event_id)
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE flag_env_enables`);
  }
}
