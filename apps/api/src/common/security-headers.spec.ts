import { securityHeaders } from './security-headers';

describe('securityHeaders', () => {
  it("is helmet's header set for a JSON api, computed once", () => {
    const h = securityHeaders();
    expect(h).toMatchObject({
      'x-content-type-options': 'nosniff',
      'x-frame-options': 'SAMEORIGIN',
      'strict-transport-security': 'max-age=31536000; includeSubDomains',
      'referrer-policy': 'no-referrer',
      'cross-origin-opener-policy': 'same-origin',
      'cross-origin-resource-policy': 'same-origin',
      'x-dns-prefetch-control': 'off',
      'x-permitted-cross-domain-policies': 'none',
      'x-xss-protection': '0',
      'origin-agent-cluster': '?1',
      'x-download-options': 'noopen',
    });
    // no CSP (Swagger UI's inline script; the console sets its own) and no COEP
    expect(h['content-security-policy']).toBeUndefined();
    expect(h['cross-origin-embedder-policy']).toBeUndefined();
    expect(Object.isFrozen(h)).toBe(true);
  });

  it('follows the options it is given', () => {
    const h = securityHeaders({
      contentSecurityPolicy: { directives: { defaultSrc: ["'self'"] } },
      xFrameOptions: false,
    });
    expect(h['content-security-policy']).toContain("default-src 'self'");
    expect(h['x-frame-options']).toBeUndefined();
  });
});
