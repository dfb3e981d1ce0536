import type { ChildProcess } from 'node:child_process';
import { createTestDatabase, TestDatabase } from '@flaglens/testing/support/test-database';
import { freePort, httpGet } from '@flaglens/testing/support/http';
import { startApp, stopApp } from '@flaglens/testing/support/processes';
import { waitFor } from '@flaglens/testing/support/wait-for';

/** Swagger UI at /docs and its assets, served by @fastify/static (the running api, on this Node). */
describe('api docs: Swagger UI and its static assets (running app)', () => {
  let db: TestDatabase;
  let api: ChildProcess;
  let port: number;

  beforeAll(async () => {
    db = await createTestDatabase('docs_e2e');
    port = await freePort();
    api = startApp('api', { DATABASE_URL: db.url, PORT: String(port) });
    await waitFor('api up', async () => (await httpGet(port, '/health/live')).status === 200, {
      timeoutMs: 60000,
    });
  });

  afterAll(async () => {
    await stopApp(api);
    await db.drop();
  });

  it('serves the page and every script and stylesheet it links', async () => {
    const page = await httpGet(port, '/docs');
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    const assets = [...page.text.matchAll(/(?:src|href)="\.?\/?([^"]+\.(?:js|css))"/g)].map((m) => m[1]);
    expect(assets).toEqual(expect.arrayContaining(['docs/swagger-ui.css', 'docs/swagger-ui-bundle.js']));
    for (const asset of assets) {
      const r = await httpGet(port, `/docs/${asset.replace(/^docs\//, '')}`);
      expect([asset, r.status]).toEqual([asset, 200]);
      expect(r.headers['content-type']).toMatch(asset.endsWith('.css') ? /text\/css/ : /javascript/);
    }
  });
});
