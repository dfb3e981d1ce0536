import { Injectable } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { AppConfig } from '@flaglens/config';
import { hashTokenSecret, PersonalAccessTokens, tokenFromHeader } from '@flaglens/projections';
import { CallerCache, UNKNOWN_TOKEN_TTL_MS } from './caller.cache';
import { authenticationRequired, unauthorized } from '../common/unleash-errors';
import { AUTH_OFF_USER_ID } from './current-user.decorator';
import { UnleashCredentials, unleashUnavailable } from './unleash-credentials';

/** The cache key of a flaglens token: its secret's hash, never the secret. */
const tokenKey = (token: string): string => `token:${hashTokenSecret(token).toString('base64')}`;

/**
 * Who sends a request: the one place that turns its credentials into a user id, for both request paths.
 *
 * As the reference (semantics §0.1): `Authorization: user:<secret>`, optionally `Bearer user:<secret>`
 * (any case), is a personal access token; flaglens's own (`token create`) are checked here. With
 * UNLEASH_API_URL set, any other credential, and the session cookie of that Unleash's UI, is checked by that
 * Unleash (UnleashCredentials): its PATs, admin API tokens and sessions work as there, and its refusals are
 * answered as it answers them (a client token: 403). No credential at all → 401 AuthenticationRequired.
 * Anything else → 401 UnauthorizedError: an unknown, revoked or expired token, a deleted or system user's
 * token. An Unleash admin API token's caller is Unleash's admin-token user (ADMIN_TOKEN_USER_ID).
 *
 * Token expiry is checked against the system time, not FLAGLENS_CLOCK (which pins read-time values only).
 * The secret is never logged nor echoed: errors carry fixed messages.
 */
@Injectable()
export class Callers {
  constructor(
    private readonly config: AppConfig,
    private readonly tokens: PersonalAccessTokens,
    private readonly cache: CallerCache,
    private readonly unleash: UnleashCredentials,
  ) {}

  /**
   * The caller if it is known without I/O (a cached token of flaglens's, or a credential Unleash accepted less
   * than its verdict's age ago), else undefined: the hot path's question, never reading the database nor
   * asking Unleash.
   */
  cached(req: FastifyRequest): number | undefined {
    if (this.config.FLAGLENS_AUTH !== 'on') return AUTH_OFF_USER_ID;
    const header = req.headers.authorization;
    const token = header ? tokenFromHeader(header) : null;
    if (token !== null) {
      const userId = this.cache.peek<number>(tokenKey(token));
      if (typeof userId === 'number') return userId;
    }
    const credential = this.unleash.credentialOf(header, req.headers.cookie);
    const verdict = credential && this.unleash.peek(credential);
    return verdict && 'userId' in verdict ? verdict.userId : undefined;
  }

  /** The caller, read or asked where not cached; throws the reference's refusal for anyone else. */
  async resolve(req: FastifyRequest): Promise<number> {
    if (this.config.FLAGLENS_AUTH !== 'on') return AUTH_OFF_USER_ID; // local experiments only
    const header = req.headers.authorization;
    const token = header ? tokenFromHeader(header) : null;
    if (token !== null) {
      // an expiring token is kept no longer than it is valid, an unknown one is remembered briefly
      const userId = await this.cache.get(
        tokenKey(token),
        async () => {
          const found = await this.tokens.authenticateUntil(token, new Date());
          return found && { value: found.userId, until: found.expiresAt?.getTime() };
        },
        UNKNOWN_TOKEN_TTL_MS,
      );
      if (userId !== null) return userId;
    }
    const credential = this.unleash.credentialOf(header, req.headers.cookie);
    if (credential === null) throw header ? unauthorized() : authenticationRequired();
    const verdict = await this.unleash.verify(credential);
    if (verdict === null) throw unleashUnavailable();
    if ('refused' in verdict) throw verdict.refused;
    return verdict.userId;
  }
}
