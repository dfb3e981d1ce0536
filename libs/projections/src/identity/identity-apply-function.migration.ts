import { MigrationInterface, QueryRunner } from 'typeorm';
import { IDENTITY_APPLY_ROUTINE } from './identity-apply.routine';

/**
 * `identity_apply(changes jsonb)`: applies a whole batch's identity changes, in order, in one round trip.
 * One statement per change cost a network round trip each — most of a batch's time on histories with many
 * membership and favourite events (bench/profile-apply.ts).
 *
 * The function's body is written once, in identity-apply.sql: a routine that `npm run migrate` re-applies
 * after the migrations in every projection version (identity-apply.routine.ts). This migration creates it
 * from that file too, so that a version migrated only this far has the function; it never held rules of its
 * own that a database still runs (docs/design.md, "Projections").
 */
export class IdentityApplyFunction1763800003100 implements MigrationInterface {
  name = 'IdentityApplyFunction1763800003100';

  async up(q: QueryRunner): Promise<void> {
    await q.query(IDENTITY_APPLY_ROUTINE.sql);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP FUNCTION identity_apply(jsonb)`);
  }
}
