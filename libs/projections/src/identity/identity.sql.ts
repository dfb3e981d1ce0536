import type { PoolClient } from 'pg';
import { IdentityChange, IdentityChangeSet, roleRefKey } from './identity.logic';

/** One change as `identity_apply` reads it (identity-apply.sql). */
function wireChange(ch: IdentityChange, eventId: number, at: string): Record<string, unknown> {
  if (ch.kind === 'access-add' || ch.kind === 'access-remove-one') {
    const { role, ...rest } = ch;
    return {
      ...rest,
      e: eventId,
      at,
      roleRef: roleRefKey(role),
      roleId: 'id' in role ? role.id : null,
      roleName: 'name' in role ? role.name : null,
    };
  }
  return { ...ch, e: eventId, at };
}

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;
/** jsonb refuses an escaped lone surrogate where a text parameter took it as U+FFFD: keep that behaviour. */
const wellFormed = (_key: string, v: unknown) =>
  typeof v === 'string' ? v.replace(LONE_SURROGATE, '\ufffd') : v;

/**
 * Applies the identity changes of a batch's events, in event order, inside the caller's transaction, in ONE
 * round trip: the rules (IdentityState, identity-state.ts) run server-side in `identity_apply`.
 */
export async function applyIdentityChanges(c: PoolClient, sets: readonly IdentityChangeSet[]): Promise<void> {
  const changes = sets.flatMap((s) => s.changes.map((ch) => wireChange(ch, s.eventId, s.at)));
  if (changes.length === 0) return;
  await c.query('SELECT identity_apply($1::jsonb)', [JSON.stringify(changes, wellFormed)]);
}
