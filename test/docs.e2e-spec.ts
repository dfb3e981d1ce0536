import type { ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createTestDatabase, TestDatabase } from '@flaglens/testing/support/test-database';
import { freePort, httpGet } from '@flaglens/testing/support/http';
import { apiGet, servedDocument, type OpenApiDocument } from '@flaglens/testing/support/openapi';
import { startApp, stopApp } from '@flaglens/testing/support/processes';
import { waitFor } from '@flaglens/testing/support/wait-for';

const REFERENCE = join(__dirname, '..', '..', 'shared', 'reference', 'unleash-openapi-subset.json');
const reference = (): OpenApiDocument | null =>
  existsSync(REFERENCE) ? (JSON.parse(readFileSync(REFERENCE, 'utf8')) as OpenApiDocument) : null;

/** The admin operations flaglens serves, by the reference system's operationIds. */
const OPERATIONS: Record<string, string> = {
  '/api/admin/events/{featureName}': 'getEventsForToggle',
  '/api/admin/events': 'getEvents',
  '/api/admin/user/profile': 'getProfile',
  '/api/admin/projects/{projectId}/overview': 'getProjectOverview',
  '/api/admin/projects/{projectId}/status': 'getProjectStatus',
  '/api/admin/personal-dashboard': 'getPersonalDashboard',
  '/api/admin/personal-dashboard/{projectId}': 'getPersonalDashboardProjectDetails',
  '/api/admin/dashboard/executive': 'getExecutiveDashboard',
  '/api/admin/insights': 'getInstanceInsights',
  '/api/admin/insights/lifecycle': 'getLifecycleTrends',
  '/api/admin/search/events': 'searchEvents',
  '/api/admin/event-creators': 'getEventCreators',
  // flaglens only: what changed in a read between two instants
  '/api/admin/diff': 'getDiff',
  '/api/admin/diff/events': 'getDiffEvents',
};

/** Swagger UI at /docs and its assets, served by @fastify/static (the running api, on this Node). */
describe('api docs: Swagger UI, its static assets and the OpenAPI document (running app)', () => {
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

  it('describes every admin operation with the reference operationId, a description and the PAT scheme', async () => {
    const doc = (await servedDocument(port)).document;
    expect(doc.components?.securitySchemes).toEqual({
      personalAccessToken: expect.objectContaining({ type: 'apiKey', in: 'header', name: 'Authorization' }),
    });
    const admin = Object.entries(doc.paths).filter(([path]) => path.startsWith('/api/admin'));
    expect(Object.fromEntries(admin.map(([path, ops]) => [path, ops.get?.operationId]))).toEqual(OPERATIONS);
    for (const [path, ops] of admin) {
      const op = ops.get as unknown as Record<string, unknown> & { responses: Record<string, object> };
      expect([path, op.security]).toEqual([path, [{ personalAccessToken: [] }]]);
      expect([path, typeof op.summary, typeof op.description]).toEqual([path, 'string', 'string']);
      for (const status of ['400', '401', '404'])
        expect([path, status, op.responses[status]]).toEqual([
          path,
          status,
          expect.objectContaining({
            content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorDoc' } } },
          }),
        ]);
    }
    // the operationIds the reference names for these paths (when the shared reference is at hand)
    for (const [path, ops] of Object.entries(reference()?.paths ?? {}))
      expect([path, doc.paths[path]?.get?.operationId]).toEqual([path, ops.get.operationId]);
  });

  it('every error answer conforms to the served document: 401 without or with a bad token, 400', async () => {
    // the database is migrated but empty: no token is known
    for (const path of Object.keys(OPERATIONS).map((p) => p.replace(/\{[^}]+\}/g, 'x'))) {
      expect((await apiGet(port, path)).status).toBe(401);
      expect((await apiGet(port, path, { authorization: 'user:' + 'f'.repeat(64) })).status).toBe(401);
    }
    expect((await apiGet(port, '/api/admin/events/%E0%A4%A')).status).toBe(400);
    // the checker itself: an answer off the document is caught
    const checker = await servedDocument(port);
    const off = { status: 401, headers: { 'content-type': 'application/json' }, text: '{"message":1}' };
    expect(checker.problems('GET', '/api/admin/user/profile', off).length).toBeGreaterThan(0);
    expect(checker.problems('GET', '/api/admin/user/profile', { ...off, status: 418 })).toEqual([
      'status 418 is not declared by getProfile',
    ]);
  });
});
