import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The events that name projects besides their own (a flag's move: `other_projects`) in time order, apart: a
 * project's events between two instants are its own (its index in the answer's order) and the moves naming it,
 * found here without reading the range's other events. Only moves are in it, so it costs the ingest next to
 * nothing.
 */
export class EventLogMoves1763800005700 implements MigrationInterface {
  name = 'EventLogMoves1763800005700';

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      `CREATE INDEX event_log_moves_created_idx ON event_log (created_at, id) WHERE other_projects IS NOT NULL`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX event_log_moves_created_idx`);
  }
}
