import { createHash } from 'node:crypto';
import { Injectable, Logger, Optional } from '@nestjs/common';
import { AppConfig } from '@flaglens/config';
import { ApiCacheMetrics } from '@flaglens/observability';
import { ApiError, authenticationRequired, unauthorized } from '../common/unleash-errors';

/**
 * A verdict about a credential is asked again after this long, in the background, while requests keep being
 * served from the one cached (an active caller never waits for Unleash after their first request).
 */
export const UNLEASH_REFRESH_AFTER_MS = 10_000;
/**
 * A verdict accepting a credential is used for at most this long, counted from when it was asked (before Unleash
 * checked): a credential deleted, expired or signed out in Unleash is refused by flaglens within this, whatever
 * happens after (Unleash down, a refresh that fails).
 */
export const UNLEASH_VERDICT_MAX_AGE_MS = 20_000;
/** A refusal is remembered this long: a flood of bad credentials does not reach Unleash one request each. */
export const UNLEASH_REFUSAL_TTL_MS = 1_000;
/** Unleash's answer is awaited at most this long; then the credential counts as unverifiable (503). */
export const UNLEASH_VERIFY_TIMEOUT_MS = 3_000;
/**
 * After Unleash did not answer, it is not asked again for this long (requests needing it get 503 at once): a
 * struggling Unleash is not sent one question per request, nor are requests held for the timeout each.
 */
export const UNLEASH_BACKOFF_MS = 1_000;
/** The most verdicts kept (oldest dropped first): each is a digest and a number, about 200 bytes. */
const MAX_VERDICTS = 50_000;

/**
 * The caller id flaglens uses for an Unleash admin API token: Unleash's own (`ADMIN_TOKEN_USER`, -42), which
 * sees every project and has no profile. flaglens's own tokens never belong to it (it is a system user).
 */
export const ADMIN_TOKEN_USER_ID = -42;

/** Unleash's answer to a client, backend or frontend token on an admin route (api-token-middleware). */
export const TOKEN_TYPE_ERROR_MESSAGE = 'invalid token: expected a different token type for this endpoint';

/** An error whose body is exactly Unleash's (these have no `id`, or not the usual envelope). */
export class VerbatimError extends ApiError {
  constructor(
    status: number,
    name: string,
    private readonly body: Record<string, unknown>,
  ) {
    super(status, name, String(body.message));
  }

  override toBody(): Record<string, unknown> {
    return this.body;
  }
}

export const wrongTokenType = () =>
  new VerbatimError(403, 'TokenTypeError', { message: TOKEN_TYPE_ERROR_MESSAGE });

/** Unleash 8.2.0's answer to the profile with an admin API token (its ApiUser has no user id). */
export const adminTokenHasNoProfile = () =>
  new VerbatimError(400, 'BadDataError', {
    name: 'BadDataError',
    message:
      'Request validation failed: your request body or params contain invalid data: User id is missing in request user object',
    details: [{ message: 'User id is missing in request user object' }],
  });

export const unleashUnavailable = () =>
  new ApiError(
    503,
    'ServiceUnavailableError',
    'The Unleash that issued this credential did not answer, so it cannot be verified. Please try again.',
  );

/** What Unleash said about a credential: its user, or the refusal flaglens answers as Unleash does. */
export type Verdict = { userId: number } | { refused: ApiError };

/** The credential of a request that only Unleash can check: its Authorization header and session cookie. */
export interface UnleashCredential {
  authorization?: string;
  session?: string;
}

interface Entry {
  verdict: Verdict;
  askedAt: number;
  until: number;
}

/**
 * Accepts the credentials a real Unleash issued (its personal access tokens, admin API tokens, the UI's session
 * cookie) by asking that Unleash (`UNLEASH_API_URL`), with the caller's own credential, who the caller is:
 * `GET /api/admin/user`. The verdict is cached by a SHA-256 digest of the credential (never the credential)
 * for at most UNLEASH_VERDICT_MAX_AGE_MS from when it was asked, refreshed in the background after
 * UNLEASH_REFRESH_AFTER_MS while the caller is active. Unleash decides everything about the credential (kind,
 * expiry, sign-out, a session winning over a token as its middleware has it); flaglens maps its user id to the
 * identity projection (the connector carries Unleash's user ids). When Unleash does not answer, a cached
 * acceptance is used until its age runs out, then the caller gets 503: fail closed (docs/deviations.md).
 */
@Injectable()
export class UnleashCredentials {
  private readonly log = new Logger('UnleashCredentials');
  private readonly base: string | null;
  private readonly cookieName: string;
  private readonly verdicts = new Map<string, Entry>();
  private readonly asking = new Map<string, Promise<Verdict | null>>();
  private lastWarning = 0;
  private unansweredUntil = 0;

  constructor(
    config: AppConfig,
    @Optional() private readonly metrics?: ApiCacheMetrics,
  ) {
    this.base = config.UNLEASH_API_URL ? config.UNLEASH_API_URL.replace(/\/+$/, '') : null;
    this.cookieName = config.UNLEASH_SESSION_COOKIE;
  }

  /** Whether flaglens follows an Unleash whose credentials it accepts. */
  get enabled(): boolean {
    return this.base !== null;
  }

  /** The credential of a request to show Unleash, or null when it has none (or flaglens asks no Unleash). */
  credentialOf(
    authorization: string | undefined,
    cookieHeader: string | undefined,
  ): UnleashCredential | null {
    if (!this.enabled) return null;
    const session = cookieHeader ? sessionCookie(cookieHeader, this.cookieName) : undefined;
    if (!authorization && !session) return null;
    // bounded: a value longer than any Unleash issues is not sent on
    if ((authorization?.length ?? 0) > 1024 || (session?.length ?? 0) > 1024) return null;
    return { authorization: authorization || undefined, session };
  }

  /** The cached verdict, never asking (the hot path); a verdict due for refresh is refreshed in the background. */
  peek(credential: UnleashCredential, now = Date.now()): Verdict | undefined {
    const key = digest(credential);
    const entry = this.verdicts.get(key);
    if (!entry || entry.until <= now) return undefined;
    if ('userId' in entry.verdict && now - entry.askedAt >= UNLEASH_REFRESH_AFTER_MS)
      void this.ask(key, credential);
    return entry.verdict;
  }

  /** The verdict of Unleash (cached, or asked now); null when Unleash did not answer and nothing cached holds. */
  async verify(credential: UnleashCredential): Promise<Verdict | null> {
    const cached = this.peek(credential);
    if (cached) return cached;
    return this.ask(digest(credential), credential);
  }

  private ask(key: string, credential: UnleashCredential): Promise<Verdict | null> {
    if (Date.now() < this.unansweredUntil) return Promise.resolve(this.peekKey(key));
    let asking = this.asking.get(key);
    if (!asking) {
      asking = this.askUnleash(credential)
        .then((verdict) => {
          if (verdict) this.keep(key, verdict.verdict, verdict.askedAt);
          // an unanswered refresh keeps the entry until its age runs out
          return verdict?.verdict ?? this.peekKey(key);
        })
        .finally(() => this.asking.delete(key));
      this.asking.set(key, asking);
    }
    return asking;
  }

  private peekKey(key: string): Verdict | null {
    const entry = this.verdicts.get(key);
    return entry && entry.until > Date.now() ? entry.verdict : null;
  }

  private keep(key: string, verdict: Verdict, askedAt: number): void {
    this.verdicts.delete(key); // re-inserted last: the Map's order is the age order
    this.verdicts.set(key, {
      verdict,
      askedAt,
      until: askedAt + ('userId' in verdict ? UNLEASH_VERDICT_MAX_AGE_MS : UNLEASH_REFUSAL_TTL_MS),
    });
    while (this.verdicts.size > MAX_VERDICTS) {
      const oldest = this.verdicts.keys().next().value as string;
      this.verdicts.delete(oldest);
    }
  }

  /** Asks Unleash who the credential's holder is; null when it did not answer as Unleash answers. */
  private async askUnleash(c: UnleashCredential): Promise<{ verdict: Verdict; askedAt: number } | null> {
    const askedAt = Date.now();
    const timer = this.metrics?.unleashAskSeconds.startTimer();
    const outcome = (o: string) => {
      timer?.();
      this.metrics?.unleashVerdicts.inc({ outcome: o });
      if (o === 'unanswered') this.unansweredUntil = Date.now() + UNLEASH_BACKOFF_MS;
    };
    const headers: Record<string, string> = { accept: 'application/json' };
    if (c.authorization) headers.authorization = c.authorization;
    if (c.session) headers.cookie = `${this.cookieName}=${c.session}`;
    let status: number;
    let body: unknown;
    try {
      const res = await fetch(`${this.base}/api/admin/user`, {
        headers,
        redirect: 'manual',
        signal: AbortSignal.timeout(UNLEASH_VERIFY_TIMEOUT_MS),
      });
      status = res.status;
      body = status === 200 ? await res.json() : await res.text();
    } catch (e) {
      outcome('unanswered');
      this.warn(`the Unleash at ${this.base} did not answer: ${e instanceof Error ? e.message : String(e)}`);
      return null;
    }
    const verdict = verdictOf(status, body, c);
    if (!verdict) {
      outcome('unanswered');
      this.warn(`the Unleash at ${this.base} answered GET /api/admin/user with ${status}`);
      return null;
    }
    outcome(
      'refused' in verdict ? 'refused' : verdict.userId === ADMIN_TOKEN_USER_ID ? 'admin-token' : 'user',
    );
    return { verdict, askedAt };
  }

  /** At most one warning every 10 s: a down Unleash is one line, not one per request. */
  private warn(message: string): void {
    const now = Date.now();
    if (now - this.lastWarning < 10_000) return;
    this.lastWarning = now;
    this.log.warn(`${message}; its credentials are refused (503) once their verdicts expire`);
  }
}

/**
 * The verdict of Unleash's answer to `GET /api/admin/user`: 200 with a user id (a PAT or a session), 200 with
 * the ADMIN permission and no id (an admin API token: Unleash's ADMIN_TOKEN_USER), 401 (unknown, deleted,
 * expired, signed out: refused as Unleash refuses it, by whether an Authorization header came), 403 (a client,
 * backend or frontend token). Anything else (5xx, a proxy's 404 or 302) is no verdict.
 */
export function verdictOf(status: number, body: unknown, c: UnleashCredential): Verdict | null {
  if (status === 401) return { refused: c.authorization ? unauthorized() : authenticationRequired() };
  if (status === 403) return { refused: wrongTokenType() };
  if (status !== 200 || typeof body !== 'object' || body === null) return null;
  const { user, permissions } = body as { user?: { id?: unknown }; permissions?: unknown };
  if (typeof user !== 'object' || user === null) return null;
  if (Number.isSafeInteger(user.id) && (user.id as number) > 0) return { userId: user.id as number };
  const admin =
    Array.isArray(permissions) &&
    permissions.some((p) => (p as { permission?: unknown } | null)?.permission === 'ADMIN');
  return admin && user.id === undefined ? { userId: ADMIN_TOKEN_USER_ID } : { refused: unauthorized() };
}

/** The value of cookie `name` in a Cookie header, as sent (Unleash's is signed and URL-encoded). */
export function sessionCookie(header: string, name: string): string | undefined {
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) {
      const value = part.slice(eq + 1).trim();
      return value === '' ? undefined : value;
    }
  }
  return undefined;
}

function digest(c: UnleashCredential): string {
  return createHash('sha256')
    .update(c.authorization ?? '')
    .update('\u0000')
    .update(c.session ?? '')
    .digest('base64url');
}
