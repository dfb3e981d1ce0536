import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The `public` schema: what is not a projection and survives rebuilds. Dead letters (raw messages with
 * their reason) and the registry of projection versions: each version is a schema `flaglens_v<N>`
 * holding every projection table and the positions they were built to; exactly one is active.
 */
export class Meta1763800000000 implements MigrationInterface {
  name = 'Meta1763800000000';

  async up(q: QueryRunner): Promise<void> {
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
    await q.query(`
      CREATE TABLE projection_versions (
        version      integer     PRIMARY KEY,
        schema_name  text        NOT NULL UNIQUE,
        status       text        NOT NULL CHECK (status IN ('building', 'active', 'retired')),
        created_at   timestamptz NOT NULL DEFAULT now(),
        activated_at timestamptz NULL,
        retired_at   timestamptz NULL
      )`);
    await q.query(
      `CREATE UNIQUE INDEX projection_versions_one_active ON projection_versions (status) WHERE status = 'active'`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE projection_versions`);
    await q.query(`DROP TABLE dead_letters`);
  }
}
