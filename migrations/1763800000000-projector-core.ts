import { MigrationInterface, QueryRunner } from 'typeorm';

/** Positions (the source of truth for what has been applied) and the dead-letter table. */
export class ProjectorCore1763800000000 implements MigrationInterface {
  name = 'ProjectorCore1763800000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE projector_offsets (
        group_id      text        NOT NULL,
        topic         text        NOT NULL,
        partition     integer     NOT NULL,
        next_offset   bigint      NOT NULL,
        last_event_at timestamptz NULL,
        updated_at    timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (group_id, topic, partition)
      )`);
    await q.query(`
      CREATE TABLE dead_letters (
        id              bigserial   PRIMARY KEY,
        topic           text        NOT NULL,
        partition       integer     NOT NULL,
        "offset"        bigint      NOT NULL,
        message_key     bytea       NULL,
        message_value   bytea       NULL,
        reason_code     text        NOT NULL,
        reason          text        NOT NULL,
        event_id        bigint      NULL,
        created_at      timestamptz NOT NULL DEFAULT now(),
        redriven_at     timestamptz NULL,
        redrive_outcome text        NULL,
        CONSTRAINT dead_letters_position_uq UNIQUE (topic, partition, "offset")
      )`);
    await q.query(`CREATE INDEX dead_letters_reason_idx ON dead_letters (reason_code, id)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE dead_letters`);
    await q.query(`DROP TABLE projector_offsets`);
  }
}
