import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Positions of the source connectors (`npm run cli -- source unleash`): where each has read Unleash up to
 * (high-water mark, open gaps, SDK buckets) and its last status (lag, last poll). In `public`: not derived
 * from the topic, so a rebuild keeps it.
 */
export class SourcePositions1763800004000 implements MigrationInterface {
  name = 'SourcePositions1763800004000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE source_positions (
        source     text        PRIMARY KEY,
        origin     text        NOT NULL,
        position   jsonb       NOT NULL,
        status     jsonb       NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE source_positions`);
  }
}
