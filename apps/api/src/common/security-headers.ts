import type { IncomingMessage, ServerResponse } from 'node:http';
import helmet, { type HelmetOptions } from 'helmet';

/** helmet's settings for a JSON api: no CSP (Swagger UI at /docs needs its inline script; the console sets its own). */
export const HELMET_OPTIONS: Readonly<HelmetOptions> = {
  contentSecurityPolicy: false,
  crossOriginEmbedderPolicy: false,
};

/**
 * The security headers helmet sets with these options, computed once: with no Content-Security-Policy (hence
 * no nonce) every one is the same on every answer, so the api sets them from this object in its first
 * `onRequest` hook instead of running helmet's eleven middleware functions per request (which cost about as
 * much as the rest of a cached read). Names are lower case, as Fastify keeps them.
 */
export function securityHeaders(
  options: Readonly<HelmetOptions> = HELMET_OPTIONS,
): Readonly<Record<string, string>> {
  const headers: Record<string, string> = {};
  const res = {
    setHeader(name: string, value: string | number | readonly string[]) {
      headers[name.toLowerCase()] = String(value);
    },
    removeHeader(name: string) {
      delete headers[name.toLowerCase()];
    },
  };
  let failure: unknown;
  let done = false;
  helmet({ ...options })({} as IncomingMessage, res as unknown as ServerResponse, (err?: unknown) => {
    failure = err;
    done = true;
  });
  if (failure !== undefined) throw failure instanceof Error ? failure : new Error(String(failure));
  if (!done) throw new Error('helmet did not finish synchronously: its headers cannot be computed once');
  return Object.freeze(headers);
}
