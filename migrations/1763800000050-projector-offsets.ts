import { MigrationInterface, QueryRunner } from 'typeorm';

/** Positions (the source of truth for what has been applied), per projection version. */
export class ProjectorOffsets1763800000050 implements MigrationInterface {
  name = 'ProjectorOffsets1763800000050';

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
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE projector_offsets`);
  }
}
