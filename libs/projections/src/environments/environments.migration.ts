import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The environment catalogue, seeded as a fresh reference installation (semantics §8): `default`
 * (production, sort 1, disabled), `development` (development, 100), `production` (production, 200).
 */
export class Environments1763800000300 implements MigrationInterface {
  name = 'Environments1763800000300';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE environments (
        name       text        PRIMARY KEY,
        type       text        NOT NULL,
        sort_order integer     NOT NULL,
        enabled    boolean     NOT NULL,
        deleted    boolean     NOT NULL DEFAULT false,
        created_at timestamptz NULL
      )`);
    await q.query(`INSERT INTO environments (name, type, sort_order, enabled) VALUES
      ('default', 'production', 1, false),
      ('development', 'development', 100, true),
      ('production', 'production', 200, true)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE environments`);
  }
}
