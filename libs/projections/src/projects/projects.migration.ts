import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Projects (settings, lifecycle, latest event time), seeded with `default` as a fresh reference
 * installation (semantics §8). The seeded row has no creation event: its createdAt is read as the time of
 * the first event of the instance (see the overview read model).
 */
export class Projects1763800000500 implements MigrationInterface {
  name = 'Projects1763800000500';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE projects (
        id                 text        PRIMARY KEY,
        exists             boolean     NOT NULL DEFAULT false,
        seeded             boolean     NOT NULL DEFAULT false,
        name               text        NULL,
        description        text        NULL,
        mode               text        NOT NULL DEFAULT 'open',
        default_stickiness text        NOT NULL DEFAULT 'default',
        feature_limit      integer     NULL,
        naming_pattern     text        NULL,
        naming_example     text        NULL,
        naming_description text        NULL,
        created_at         timestamptz NULL,
        archived_at        timestamptz NULL,
        link_enabled_envs  boolean     NOT NULL DEFAULT false,
        last_event_at      timestamptz NULL
      )`);
    await q.query(`INSERT INTO projects (id, exists, seeded, name, description)
      VALUES ('default', true, true, 'Default', 'Default project')`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE projects`);
  }
}
