import { AppConfig } from '@flaglens/config';
import {
  ADMIN_TOKEN_USER_ID,
  sessionCookie,
  TOKEN_TYPE_ERROR_MESSAGE,
  UnleashCredentials,
  verdictOf,
} from './unleash-credentials';

const withHeader = { authorization: 'user:abc' };
const withCookie = { session: 's%3Aabc.def' };

describe("Unleash's answer to GET /api/admin/user as a verdict", () => {
  it('a user (PAT or session): their id', () => {
    expect(verdictOf(200, { user: { id: 7, username: 'bob' }, permissions: [] }, withHeader)).toEqual({
      userId: 7,
    });
  });

  it("an admin API token (ADMIN, no user id, as 8.2.0 answers it): Unleash's admin-token user", () => {
    const body = {
      user: { username: 'admin', permissions: ['ADMIN'], type: 'admin', internalAdminTokenUserId: -42 },
      permissions: [{ permission: 'ADMIN' }],
    };
    expect(verdictOf(200, body, withHeader)).toEqual({ userId: ADMIN_TOKEN_USER_ID });
  });

  it('a 200 without a user id nor ADMIN is refused', () => {
    expect(verdictOf(200, { user: { username: 'x' }, permissions: [] }, withHeader)).toMatchObject({
      refused: { status: 401, name: 'UnauthorizedError' },
    });
  });

  it('401: UnauthorizedError with a header, AuthenticationRequired with only a cookie (as Unleash)', () => {
    expect(verdictOf(401, '', withHeader)).toMatchObject({
      refused: { status: 401, name: 'UnauthorizedError' },
    });
    expect(verdictOf(401, '', withCookie)).toMatchObject({
      refused: { status: 401, name: 'AuthenticationRequired' },
    });
  });

  it("403 (a client, backend or frontend token): Unleash's body, verbatim", () => {
    const v = verdictOf(403, '', withHeader);
    expect(v && 'refused' in v && v.refused.status).toBe(403);
    expect(v && 'refused' in v && v.refused.toBody()).toEqual({ message: TOKEN_TYPE_ERROR_MESSAGE });
  });

  it('anything else is no verdict (Unleash down or not Unleash): the caller gets 503, not a refusal', () => {
    for (const [status, body] of [
      [500, 'oops'],
      [502, ''],
      [404, 'not found'],
      [302, ''],
      [200, 'not json'],
      [200, { nothing: true }],
    ] as const)
      expect(verdictOf(status, body, withHeader)).toBeNull();
  });
});

describe('the session cookie of a Cookie header', () => {
  it('is found by name among others, as sent', () => {
    expect(sessionCookie('a=1; unleash-session=s%3Axyz.sig; b=2', 'unleash-session')).toBe('s%3Axyz.sig');
    expect(sessionCookie('unleash-session=', 'unleash-session')).toBeUndefined();
    expect(sessionCookie('xunleash-session=1', 'unleash-session')).toBeUndefined();
    expect(sessionCookie('a=1', 'unleash-session')).toBeUndefined();
  });
});

describe('which credentials go to Unleash', () => {
  const config = (url?: string) => Object.assign(new AppConfig(), { UNLEASH_API_URL: url });

  it('none without UNLEASH_API_URL', () => {
    expect(new UnleashCredentials(config()).credentialOf('user:x', 'unleash-session=y')).toBeNull();
  });

  it('the header and the session cookie only (no other cookie), bounded in length', () => {
    const u = new UnleashCredentials(config('http://unleash:4242/'));
    expect(u.credentialOf('*:*.abc', 'other=1; unleash-session=s%3Ax')).toEqual({
      authorization: '*:*.abc',
      session: 's%3Ax',
    });
    expect(u.credentialOf(undefined, 'other=1')).toBeNull();
    expect(u.credentialOf('', undefined)).toBeNull();
    expect(u.credentialOf('x'.repeat(1025), undefined)).toBeNull();
  });
});
