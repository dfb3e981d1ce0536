import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * What reads as of an instant need from the log at any size (docs/design.md, "Reads as of an instant"), without
 * counting or scanning it whole:
 * - `event_log_days`: how many events the log holds per UTC day of `created_at` and source partition (-1: none),
 *   kept in each batch's transaction, so the events up to an instant are a sum over days and a count within one
 *   day (`eventsUpTo`): a checkpoint's usability check no longer grows with the log;
 * - `event_log_position_idx`: the events of a partition by their place in it (the offset; the id for events
 *   without a partition), so a checkpoint's maker reads only the positions between two checkpoints.
 */
export class EventLogDays1763800004800 implements MigrationInterface {
  name = 'EventLogDays1763800004800';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE event_log_days (
        day              date    NOT NULL,
        source_partition integer NOT NULL,
        n                bigint  NOT NULL,
        PRIMARY KEY (day, source_partition)
      )`);
    await q.query(`
      INSERT INTO event_log_days (day, source_partition, n)
      SELECT (created_at AT TIME ZONE 'UTC')::date, COALESCE(source_partition, -1), count(*)
        FROM event_log GROUP BY 1, 2`);
    await q.query(`CREATE INDEX event_log_position_idx ON event_log
      (source_partition, (CASE WHEN source_partition IS NULL THEN id ELSE source_offset END))`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX event_log_position_idx`);
    await q.query(`DROP TABLE event_log_days`);
  }
}
