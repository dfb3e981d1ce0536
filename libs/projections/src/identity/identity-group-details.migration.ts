import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * What the Unleash 8.x profile answers of the caller's groups (`groups[]`): a group's settings (`details`:
 * rootRole, description, mappingsSSO, scimId, from group-created/-updated), also held by a provisional group
 * until it is bound, and when and by whom each user was added (the reference's `group_user.created_at` and
 * `created_by`, which its profile answers as the group's `createdAt` and `createdBy`). Existing rows start
 * without them (the profile then answers the reference's defaults); a rebuild replays the events.
 */
export class IdentityGroupDetails1763800004510 implements MigrationInterface {
  name = 'IdentityGroupDetails1763800004510';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE identity_groups ADD COLUMN details jsonb NULL`);
    await q.query(`ALTER TABLE identity_pending_groups
      ADD COLUMN details jsonb NULL, ADD COLUMN created_by text NULL, ADD COLUMN created_at timestamptz NULL`);
    await q.query(`ALTER TABLE identity_group_users
      ADD COLUMN created_at timestamptz NULL, ADD COLUMN created_by text NULL`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE identity_group_users DROP COLUMN created_at, DROP COLUMN created_by`);
    await q.query(`ALTER TABLE identity_pending_groups
      DROP COLUMN details, DROP COLUMN created_by, DROP COLUMN created_at`);
    await q.query(`ALTER TABLE identity_groups DROP COLUMN details`);
  }
}
