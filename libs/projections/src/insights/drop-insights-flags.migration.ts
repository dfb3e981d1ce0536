import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Flag state is kept once: insights books its deltas from flag-state's transitions (before → after each
 * event) instead of a second copy of every flag's state and a second reduce of its events.
 */
export class DropInsightsFlags1763800004100 implements MigrationInterface {
  name = 'DropInsightsFlags1763800004100';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE insights_flags`);
  }

  async down(q: QueryRunner): Promise<void> {
    // the copy equalled flag_state (the same events through the same rules)
    await q.query(`CREATE TABLE insights_flags (LIKE flag_state INCLUDING ALL)`);
    await q.query(`INSERT INTO insights_flags SELECT * FROM flag_state`);
  }
}
