import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { RowQueryable } from '@flaglens/persistence';
import { CHANGE_CHANNEL, encodeChanges } from '../change-feed';
import { EVERY } from '../projection';

/**
 * Personal access tokens, in the reference's header form `Authorization: user:<secret>` (optionally
 * `Bearer user:<secret>`). They are not events: the operator CLI writes them to `personal_access_tokens`.
 *
 * The secret is `user:` + 32 random bytes in hex (256 bits). Only its SHA-256 is stored: for a secret of
 * that entropy a fast hash is enough (no dictionary or brute force can find a 256-bit preimage; slow
 * password hashes exist for low-entropy human passwords), and it lets the guard look a token up by its
 * hash in one indexed query. The stored hash is then compared in constant time.
 */
export const TOKEN_PREFIX = 'user:';

/** The notice of a revocation: the tokens' table, written at every key (readers of it drop what they hold). */
const REVOKED = encodeChanges([
  { tables: ['personal_access_tokens'], flags: new Set<string>(), projects: EVERY },
])[0];

export function newTokenSecret(): string {
  return TOKEN_PREFIX + randomBytes(32).toString('hex');
}

export function hashTokenSecret(secret: string): Buffer {
  return createHash('sha256').update(secret, 'utf8').digest();
}

/**
 * The token of an Authorization header value: a leading `Bearer ` (any case) is stripped (as the
 * reference's bearer-token middleware); null when the value is not a `user:` token.
 */
export function tokenFromHeader(header: string): string | null {
  const v = header.replace(/^bearer\s+/i, '').trim();
  return v.startsWith(TOKEN_PREFIX) && v.length > TOKEN_PREFIX.length && v.length <= 512 ? v : null;
}

export interface TokenInfo {
  id: number;
  userId: number;
  username: string | null;
  email: string | null;
  name: string | null;
  createdAt: string;
  expiresAt: string | null;
  revokedAt: string | null;
  seenAt: string | null;
}

export class PersonalAccessTokens {
  constructor(private readonly db: RowQueryable) {}

  /**
   * The user id owning an active token: not revoked, not expired (at `now`), and its user known, not
   * deleted and not a system user (reference: activeAccounts). Null otherwise.
   */
  async authenticate(secret: string, now: Date): Promise<number | null> {
    return (await this.authenticateUntil(secret, now))?.userId ?? null;
  }

  /** As `authenticate`, with the token's expiry (so a cache of the answer never outlives it). */
  async authenticateUntil(
    secret: string,
    now: Date,
  ): Promise<{ userId: number; expiresAt: Date | null } | null> {
    const hash = hashTokenSecret(secret);
    const rows: { user_id: number; secret_hash: Buffer; expires_at: Date | null }[] = await this.db.query(
      `SELECT t.user_id::int AS user_id, t.secret_hash, t.expires_at FROM personal_access_tokens t
         JOIN identity_users u ON u.id = t.user_id AND NOT u.deleted AND NOT u.is_system
        WHERE t.secret_hash = $1 AND t.revoked_at IS NULL AND (t.expires_at IS NULL OR t.expires_at > $2)`,
      [hash, now],
    );
    const row = rows[0];
    if (!row || row.secret_hash.length !== hash.length || !timingSafeEqual(row.secret_hash, hash))
      return null;
    return { userId: row.user_id, expiresAt: row.expires_at };
  }

  /** Issues a token; returns the secret (shown once, never stored) and the token's id. */
  async create(
    userId: number,
    opts: { name?: string; expiresAt?: Date },
  ): Promise<{ id: number; secret: string }> {
    const secret = newTokenSecret();
    const rows: { id: number }[] = await this.db.query(
      `INSERT INTO personal_access_tokens (user_id, name, secret_hash, expires_at) VALUES ($1, $2, $3, $4)
       RETURNING id::int AS id`,
      [userId, opts.name ?? null, hashTokenSecret(secret), opts.expiresAt ?? null],
    );
    return { id: rows[0].id, secret };
  }

  async list(): Promise<TokenInfo[]> {
    const rows: TokenInfo[] = await this.db.query(
      `SELECT t.id::int AS "id", t.user_id::int AS "userId", u.username, u.email, t.name,
              to_json(t.created_at)#>>'{}' AS "createdAt", to_json(t.expires_at)#>>'{}' AS "expiresAt",
              to_json(t.revoked_at)#>>'{}' AS "revokedAt", to_json(t.seen_at)#>>'{}' AS "seenAt"
         FROM personal_access_tokens t LEFT JOIN identity_users u ON u.id = t.user_id ORDER BY t.id`,
    );
    return rows;
  }

  /** Revokes a token; false when there is no such (unrevoked) token. */
  async revoke(id: number): Promise<boolean> {
    const rows: unknown[] = await this.db.query(
      `WITH r AS (UPDATE personal_access_tokens SET revoked_at = now() WHERE id = $1 AND revoked_at IS NULL RETURNING id)
       SELECT id, pg_notify($2, $3) FROM r`,
      // api instances drop what they cached about callers (the notice goes out when this commits)
      [id, CHANGE_CHANNEL, REVOKED],
    );
    return rows.length > 0;
  }
}
