import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { AppConfig } from '@flaglens/config';
import { hashTokenSecret, PersonalAccessTokens, tokenFromHeader } from '@flaglens/projections';
import { CallerCache, UNKNOWN_TOKEN_TTL_MS } from './caller.cache';
import { authenticationRequired, unauthorized } from '../common/unleash-errors';
import { AuthenticatedRequest, AUTH_OFF_USER_ID } from './current-user.decorator';

/**
 * Guards every /api/admin route (registered globally; `/health`, `/docs`, `/schemas` stay open).
 *
 * As the reference (semantics §0.1): `Authorization: user:<secret>`, optionally `Bearer user:<secret>`
 * (any case), is a personal access token. No Authorization header → 401 AuthenticationRequired (a session
 * cookie is not a credential here: flaglens has no sessions). Anything else → 401 UnauthorizedError:
 * an unknown, revoked or expired token, a deleted or system user's token, and any token not of the
 * `user:` form (flaglens has no API tokens; the reference answers a *valid* client token with 403).
 * The caller's user id is attached to the request (`@CurrentUser()`).
 *
 * Token expiry is checked against the system time, not FLAGLENS_CLOCK (which pins read-time values only).
 * The secret is never logged nor echoed: errors carry fixed messages.
 */
@Injectable()
export class AdminAuthGuard implements CanActivate {
  constructor(
    private readonly config: AppConfig,
    private readonly tokens: PersonalAccessTokens,
    private readonly cache: CallerCache,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const req = context.switchToHttp().getRequest<AuthenticatedRequest>();
    // the matched route's pattern, not the raw path: routing ignores letter case (as the reference's)
    if (!(req.routeOptions.url ?? '').startsWith('/api/admin')) return true;
    if (req.flaglensUserId !== undefined) return true; // already authenticated (guard applied twice)
    if (this.config.FLAGLENS_AUTH !== 'on') {
      // local experiments only: every caller is the initial admin
      req.flaglensUserId = AUTH_OFF_USER_ID;
      return true;
    }
    const header = req.headers.authorization;
    if (header === undefined || header === '') throw authenticationRequired();
    const token = tokenFromHeader(header);
    if (token === null) throw unauthorized();
    // keyed by the secret's hash, never the secret; an expiring token is kept no longer than it is valid,
    // an unknown one is remembered briefly
    const userId = await this.cache.get(
      `token:${hashTokenSecret(token).toString('base64')}`,
      async () => {
        const found = await this.tokens.authenticateUntil(token, new Date());
        return found && { value: found.userId, until: found.expiresAt?.getTime() };
      },
      UNKNOWN_TOKEN_TTL_MS,
    );
    if (userId === null) throw unauthorized();
    req.flaglensUserId = userId;
    return true;
  }
}
