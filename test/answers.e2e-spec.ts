import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { FlagEvent } from '@flaglens/contract';
import { generateHistory } from '@flaglens/testing/generate-history';
import { createToken } from '@flaglens/testing/support/cli';
import { httpGet } from '@flaglens/testing/support/http';
import { startStack, type Stack } from '@flaglens/testing/support/stack';

const PINNED = '2026-06-01T12:00:00.000Z';
const FIXTURE = join(__dirname, 'fixtures', 'answers', 'simulated-history.json');

/** A private project with a flag, and a flag moved out of it: visibility is part of every answer. */
function privateProject(firstId: number): FlagEvent[] {
  const base = {
    createdBy: 'user2@example.com',
    createdByUserId: 2,
    environment: null,
    featureName: null,
    preData: null,
    tags: null,
  };
  return [
    {
      ...base,
      id: firstId,
      createdAt: '2026-05-20T10:00:00.000Z',
      type: 'project-created',
      project: 'vault',
      data: { id: 'vault', name: 'Vault', mode: 'private' },
    },
    {
      ...base,
      id: firstId + 1,
      createdAt: '2026-05-20T10:01:00.000Z',
      type: 'feature-created',
      project: 'vault',
      featureName: 'vault.secret',
      data: { name: 'vault.secret', type: 'release' },
    },
    {
      ...base,
      id: firstId + 2,
      createdAt: '2026-05-20T10:02:00.000Z',
      type: 'feature-created',
      project: 'vault',
      featureName: 'vault.leaving',
      data: { name: 'vault.leaving', type: 'experiment' },
    },
    {
      ...base,
      id: firstId + 3,
      createdAt: '2026-05-21T10:00:00.000Z',
      type: 'feature-project-change',
      project: 'default',
      featureName: 'vault.leaving',
      data: { oldProject: 'vault', newProject: 'default' },
    },
  ];
}

/**
 * The answers of every endpoint for a simulated history, byte for byte, against a committed fixture of their
 * digests (running apps, real Kafka and Postgres). A change that must not change behaviour (a refactoring)
 * keeps this green; a deliberate change of answers regenerates the fixture with FLAGLENS_UPDATE_ANSWERS=1.
 */
describe('answers of every endpoint for a simulated history, byte for byte', () => {
  let stack: Stack;
  const history = generateHistory({
    seed: 7,
    projects: 6,
    flagsPerProject: 12,
    events: 4000,
    weeks: 30,
    end: PINNED,
    rich: true,
  });
  const events = [...history, ...privateProject(Math.max(...history.map((e) => e.id)) + 1)];

  beforeAll(async () => {
    stack = await startStack('answers', { FLAGLENS_CLOCK: PINNED });
    const file = join(tmpdir(), `answers-${process.pid}.ndjson`);
    writeFileSync(file, events.map((e) => JSON.stringify(e)).join('\n') + '\n');
    await stack.publish(file);
    await stack.waitForEvents(events.length);
  });

  afterAll(async () => {
    await stack?.stop();
  });

  it('equal the fixture', async () => {
    const callers: Record<string, Record<string, string>> = {};
    for (const [name, user] of [
      ['admin', 'admin'],
      ['owner', '2'],
      ['viewer', '3'],
    ])
      callers[name] = { authorization: await createToken(stack.env, user) };
    const flags = [...new Set(events.flatMap((e) => (e.featureName ? [e.featureName] : [])))].sort();
    const projects = [...new Set(events.flatMap((e) => (e.project ? [e.project] : [])))].sort();
    const requests: [string, string][] = [];
    for (const f of flags)
      for (const c of ['admin', 'viewer']) requests.push([c, `/api/admin/events/${encodeURIComponent(f)}`]);
    for (const p of projects)
      for (const c of ['admin', 'owner', 'viewer']) {
        requests.push([c, `/api/admin/projects/${encodeURIComponent(p)}/overview`]);
      }
    for (const c of ['admin', 'owner', 'viewer']) {
      requests.push([c, '/api/admin/user/profile']);
      requests.push([c, '/api/admin/events']);
      requests.push([c, '/api/admin/insights']);
    }
    requests.push(['admin', '/api/admin/insights?from=2026-03-01&to=2026-04-30']);
    requests.push(['viewer', '/api/admin/dashboard/executive']);
    const answers: Record<string, string> = {};
    for (const [caller, path] of requests) {
      const res = await httpGet(stack.port, path, callers[caller]);
      // an error body's `id` is a fresh UUID each time (as the reference's)
      const text = res.status >= 400 ? res.text.replace(/"id":"[0-9a-f-]{36}"/, '"id":"-"') : res.text;
      answers[`${caller} ${path}`] = `${res.status} ${createHash('sha256').update(text).digest('hex')}`;
    }
    expect(Object.keys(answers).length).toBeGreaterThan(150);
    if (process.env.FLAGLENS_UPDATE_ANSWERS === '1') {
      mkdirSync(dirname(FIXTURE), { recursive: true });
      writeFileSync(FIXTURE, JSON.stringify(answers, null, 2) + '\n');
    }
    expect(answers).toEqual(JSON.parse(readFileSync(FIXTURE, 'utf8')));
  });
});
