import { existsSync } from 'node:fs';
import { join } from 'node:path';
import fastifyStatic from '@fastify/static';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';

/**
 * The console's Content-Security-Policy: scripts, styles and data from this origin only; no inline script or
 * style (`unsafe-inline`), no eval, no frames, no forms posting elsewhere.
 */
export const CONSOLE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data: blob:",
  "connect-src 'self'",
  "font-src 'self'",
  "manifest-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

/** Where `npm run build` puts the console (scripts/build-console.mjs): dist/console, from source or from dist. */
export function consoleDir(): string | null {
  const candidates = [
    process.env.FLAGLENS_CONSOLE_DIR,
    join(__dirname, '..', '..', '..', '..', 'console'), // dist/apps/api/src/console → dist/console
    join(__dirname, '..', '..', '..', '..', 'dist', 'console'), // apps/api/src/console → dist/console
  ];
  return candidates.find((d): d is string => !!d && existsSync(join(d, 'index.html'))) ?? null;
}

/**
 * Serves the console's static files at /console/ (index.html at /console/), with the strict CSP above.
 * `/console` (the README's link) redirects to `/console/`: the page names its files relative to its own
 * directory (`./main.*.js`), which from `/console` would resolve under `/`. Nothing is fetched from elsewhere at run time: the files are built by `npm run build`.
 * Without a built console the api runs as before and says so once.
 */
export async function serveConsole(app: NestFastifyApplication, warn: (m: string) => void): Promise<void> {
  const root = consoleDir();
  const fastify = app.getHttpAdapter().getInstance();
  if (!root) {
    warn('the web console is not built (npm run build): /console is not served');
    return;
  }
  const headers = (res: { header: (k: string, v: string) => unknown }, path: string) => {
    res.header('content-security-policy', CONSOLE_CSP);
    // hashed file names never change; index.html names the current ones
    res.header(
      'cache-control',
      /\.[0-9A-Z]{8}\.(js|css)$/.test(path) ? 'public, max-age=31536000, immutable' : 'no-cache',
    );
  };
  // every file under dist/console; /console/ is the page
  await fastify.register(fastifyStatic, {
    root,
    prefix: '/console/',
    index: false,
    redirect: false,
    wildcard: true,
    cacheControl: false,
    setHeaders: headers,
  });
  // one route for /console and /console/ (routing ignores a trailing slash); the query string goes along to
  // the redirect (the fragment, the page's route, stays in the browser)
  fastify.get('/console', (req, reply) => {
    const query = req.url.indexOf('?');
    const path = query === -1 ? req.url : req.url.slice(0, query);
    if (!path.endsWith('/'))
      return reply.redirect(`/console/${query === -1 ? '' : req.url.slice(query)}`, 301);
    headers(reply, 'index.html');
    return reply.sendFile('index.html');
  });
}
