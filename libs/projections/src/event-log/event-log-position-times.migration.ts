import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The events of a partition by their place in it, with their instants (`event_log_position_at_idx`, in place of
 * `event_log_position_idx`): a checkpoint's maker asks which events between two places were created after an
 * instant (as-of.ts, `lateAfter`), and answers it from the index alone, without visiting the log's rows. The log
 * is read by a maker that trails a backfill, where its rows are no longer cached: each visit was a read from
 * disk. The columns of the place's expression are included too: without them Postgres does not answer from the
 * index alone.
 */
export class EventLogPositionTimes1763800005200 implements MigrationInterface {
  name = 'EventLogPositionTimes1763800005200';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE INDEX event_log_position_at_idx ON event_log
      (source_partition, (CASE WHEN source_partition IS NULL THEN id ELSE source_offset END))
      INCLUDE (created_at, source_offset, id)`);
    await q.query(`DROP INDEX event_log_position_idx`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`CREATE INDEX event_log_position_idx ON event_log
      (source_partition, (CASE WHEN source_partition IS NULL THEN id ELSE source_offset END))`);
    await q.query(`DROP INDEX event_log_position_at_idx`);
  }
}
