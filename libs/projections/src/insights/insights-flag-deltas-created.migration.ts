import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The flag deltas by type and creation day: the weeks computed after the stored base find the fresh flags whose
 * lifetime ends in them (`created_day` + the type's lifetime) from this index, a range per type, instead of
 * reading every delta since the first event. One entry per (day, project, type, creation day) row, which a
 * batch adds only on a flag's first change of a day.
 */
export class InsightsFlagDeltasCreated1763800005800 implements MigrationInterface {
  name = 'InsightsFlagDeltasCreated1763800005800';

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      `CREATE INDEX insights_flag_deltas_created_idx ON insights_flag_deltas (type, created_day)`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX insights_flag_deltas_created_idx`);
  }
}
