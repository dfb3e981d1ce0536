import { MigrationInterface, QueryRunner } from 'typeorm';
import { TimeToProduction1763800000800 } from './time-to-production.migration';

/**
 * Time to production without a row per enable: the event log already holds every
 * `feature-environment-enabled` event with its flag, environment and exact time, so a partial index on it
 * answers "the first enable after creation in this environment" (one index probe, as before). Saves a second
 * per-event write (heap row + primary key) and its statement in every batch.
 */
export class TimeToProductionFromEventLog1763800003200 implements MigrationInterface {
  name = 'TimeToProductionFromEventLog1763800003200';

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      `CREATE INDEX event_log_enable_idx ON event_log (feature_name, environment, created_at)
        WHERE type = 'feature-environment-enabled'`,
    );
    await q.query(`DROP TABLE flag_env_enables`);
  }

  async down(q: QueryRunner): Promise<void> {
    await new TimeToProduction1763800000800().up(q); // the table as it was created
    await q.query(`
      INSERT INTO flag_env_enables (feature_name, environment, enabled_at, event_id)
      SELECT feature_name, environment, created_at, id FROM event_log
       WHERE type = 'feature-environment-enabled' AND known_type
         AND feature_name <> '' AND environment <> ''`);
    await q.query(`DROP INDEX event_log_enable_idx`);
  }
}
