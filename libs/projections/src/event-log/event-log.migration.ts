import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The event log: every accepted event once (by id), with the body pre-serialised in the reference's
 * wire shape so the event list is assembled in SQL without decoding rows in Node.
 */
export class EventLog1763800000100 implements MigrationInterface {
  name = 'EventLog1763800000100';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE event_log (
        id                 bigint      PRIMARY KEY,
        created_at         timestamptz NOT NULL,
        type               text        NOT NULL,
        feature_name       text        NULL,
        project            text        NULL,
        environment        text        NULL,
        created_by         text        NOT NULL,
        created_by_user_id bigint      NULL,
        known_type         boolean     NOT NULL DEFAULT true,
        body               text        NOT NULL,
        source_topic       text        NULL,
        source_partition   integer     NULL,
        source_offset      bigint      NULL,
        recorded_at        timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX event_log_feature_idx ON event_log (feature_name, created_at DESC, id DESC)`);
    await q.query(`CREATE INDEX event_log_created_idx ON event_log (created_at DESC, id DESC)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE event_log`);
  }
}
