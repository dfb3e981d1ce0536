import { existsSync } from 'node:fs';
import type { Browser, ConsoleMessage, Page } from 'puppeteer-core';
import puppeteer from 'puppeteer-core';

/** Debian's `chromium` (apt-get install chromium; .ci/run installs it), or CHROMIUM_PATH. */
const CANDIDATES = ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome'];

export function findChromium(): string {
  const explicit = process.env.CHROMIUM_PATH;
  if (explicit) {
    if (!existsSync(explicit)) throw new Error(`CHROMIUM_PATH=${explicit} does not exist`);
    return explicit;
  }
  const found = CANDIDATES.find((p) => existsSync(p));
  if (!found)
    throw new Error(
      `no Chromium found (looked for ${CANDIDATES.join(', ')}): install Debian's package ` +
        '(`apt-get install chromium`, as .ci/run does) or set CHROMIUM_PATH',
    );
  return found;
}

export async function launchChromium(): Promise<Browser> {
  return puppeteer.launch({
    executablePath: findChromium(),
    headless: true,
    // --no-sandbox: CI runs as root, where Chromium's sandbox cannot start
    args: ['--no-sandbox', '--disable-dev-shm-usage', '--disable-gpu', '--lang=en-US'],
    defaultViewport: { width: 1280, height: 900 },
  });
}

/** Every console error, uncaught exception and failed request of a page (a CSP violation is a console error). */
export function collectProblems(page: Page): string[] {
  const problems: string[] = [];
  page.on('console', (m: ConsoleMessage) => {
    if (m.type() === 'error') problems.push(`console: ${m.text()}`);
  });
  page.on('pageerror', (e) => problems.push(`pageerror: ${(e as Error).message}`));
  page.on('requestfailed', (r) => problems.push(`requestfailed: ${r.url()} ${r.failure()?.errorText}`));
  return problems;
}
