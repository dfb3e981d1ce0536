import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Personal access tokens live in `public`: they are operator data written by the CLI, not a projection of
 * events, so a rebuild must not lose them. Only the SHA-256 of each secret is kept.
 */
export class PersonalAccessTokens1763800000210 implements MigrationInterface {
  name = 'PersonalAccessTokens1763800000210';

  async up(q: QueryRunner): Promise<void> {
    // personal access tokens: not events; written by the CLI (`token create|revoke`), only the hash is kept
    await q.query(`
      CREATE TABLE personal_access_tokens (
        id          bigserial   PRIMARY KEY,
        user_id     bigint      NOT NULL,
        name        text        NULL,
        secret_hash bytea       NOT NULL UNIQUE,
        created_at  timestamptz NOT NULL DEFAULT now(),
        expires_at  timestamptz NULL,
        revoked_at  timestamptz NULL,
        seen_at     timestamptz NULL
      )`);
    await q.query(`CREATE INDEX personal_access_tokens_user_idx ON personal_access_tokens (user_id)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE personal_access_tokens`);
  }
}
