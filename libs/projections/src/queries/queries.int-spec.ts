import { readdirSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from 'pg';
import type { Database } from '@flaglens/persistence';
import { feedProjections } from '@flaglens/testing/support/feed-projections';
import { projectionDatabases } from '@flaglens/testing/support/test-database';
import { generateHistory } from '@flaglens/testing/generate-history';
import { EventLogReadModel } from '../event-log/event-log.read-model';
import { isSearchRefusal, parseEventSearch } from '../event-log/event-search.logic';
import { IdentityReadModel } from '../identity/identity.read-model';
import { InsightsReadModel } from '../insights/insights.read-model';
import { LifecycleReadModel } from '../lifecycle/lifecycle.read-model';
import { ProjectStatusReadModel } from '../project-status/project-status.read-model';
import { OverviewReadModel } from '../overview/overview.read-model';

/**
 * The final SQL of every hot read, as sent to Postgres, checked in beside this file (one `.sql` per read), so
 * that a change to a statement shows whole in review (docs/design.md, "SQL in view"). The reads run against a
 * real, fed database; every statement a read sends is recorded where pg sends it. When a statement changes on
 * purpose, `UPDATE_QUERIES=1 npx jest libs/projections/src/queries --selectProjects int` rewrites the files.
 */
const DIR = __dirname;
const END = '2026-11-20T12:00:00.000Z';
const NOW = new Date(END);

const original = Client.prototype.query;
/** What the running read sent; null while no read is recorded. */
let sent: string[] | null = null;
jest.spyOn(Client.prototype, 'query').mockImplementation(function (this: Client, ...args: unknown[]) {
  const q = args[0] as string | { text?: string } | undefined;
  const text = typeof q === 'string' ? q : q?.text;
  if (sent && text && !/^\s*(SET|BEGIN|COMMIT|ROLLBACK)\b/i.test(text)) sent.push(text);
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  return (original as any).apply(this, args);
});

/** The statements one read sends, each once, in the order first sent (session setup left out). */
async function record(read: () => Promise<unknown>): Promise<string[]> {
  sent = [];
  try {
    await read();
    return [...new Set(sent)];
  } finally {
    sent = null;
  }
}

function render(name: string, why: string, statements: string[]): string {
  const dedent = (s: string) => {
    const lines = s.replace(/^\n+|\s+$/g, '').split('\n');
    const indent = Math.min(...lines.filter((l) => l.trim()).map((l) => /^ */.exec(l)![0].length));
    return lines.map((l) => l.slice(Math.min(indent, /^ */.exec(l)![0].length)).trimEnd()).join('\n');
  };
  return (
    `-- ${name}: ${why}\n-- rendered by libs/projections/src/queries/queries.int-spec.ts; do not edit\n\n` +
    statements.map((s) => `${dedent(s)};\n`).join('\n')
  );
}

describe('the hot reads’ SQL, as sent', () => {
  const dbs = projectionDatabases();
  const rendered = new Map<string, string>();
  let ds: Database;

  beforeAll(async () => {
    ({ ds } = await dbs.fresh('queries'));
    await feedProjections(ds, [
      generateHistory({
        seed: 7,
        projects: 3,
        flagsPerProject: 4,
        events: 600,
        weeks: 6,
        end: END,
        rich: true,
      }),
    ]);
  });
  afterAll(async () => {
    jest.restoreAllMocks();
    await dbs.dropAll();
  });

  const pool = () => ({ pool: () => ds.pool });
  const read = (name: string, why: string, run: () => Promise<unknown>) =>
    it(name, async () => {
      const statements = await record(run);
      expect(statements.length).toBeGreaterThan(0);
      rendered.set(name, render(name, why, statements));
    });
  const search = (q: Record<string, string>) => {
    const s = parseEventSearch(q);
    if (isSearchRefusal(s)) throw new Error(s.message);
    return s;
  };

  read('flag-events', "GET /api/admin/events/{featureName}: a flag's whole list", () =>
    new EventLogReadModel(pool()).storedEventsOfFlag('sim-project-1.flag-1', [], 1000),
  );
  read('flag-events-at', "GET /api/admin/events/{featureName}?at=: a flag's list as of an instant", () =>
    new EventLogReadModel(pool()).storedEventsOfFlag(
      'sim-project-1.flag-1',
      [],
      1000,
      '2026-11-01T00:00:00.000Z',
    ),
  );
  read('search-events', 'GET /api/admin/search/events, no filter, as a root Admin', () =>
    new EventLogReadModel(pool()).searchEvents(search({}), false),
  );
  read('search-events-type', 'GET /api/admin/search/events?type=IS:feature-updated', () =>
    new EventLogReadModel(pool()).searchEvents(search({ type: 'IS:feature-updated' }), false),
  );
  read(
    'search-events-restricted',
    'GET /api/admin/search/events?project=IS:sim-project-1&query=flag&from=IS:2026-11-01&to=IS:2026-11-10, not a root Admin',
    () =>
      new EventLogReadModel(pool()).searchEvents(
        search({ project: 'IS:sim-project-1', query: 'flag', from: 'IS:2026-11-01', to: 'IS:2026-11-10' }),
        true,
        ['sim-project-2'],
      ),
  );
  read('event-creators', 'GET /api/admin/event-creators', () =>
    new EventLogReadModel(pool()).eventCreators(),
  );
  read('profile', 'GET /api/admin/user/profile', () => new IdentityReadModel(ds).profile(1));
  read('project-access', 'who may see a project (every project read)', () =>
    new IdentityReadModel(ds).accessToProject(1, 'sim-project-1'),
  );
  read('hidden-projects', 'the private projects a caller may not see (lists and reports)', () =>
    new IdentityReadModel(ds).hiddenProjects(1),
  );
  read('overview', 'GET /api/admin/projects/{projectId}/overview, its state and activity', () =>
    new OverviewReadModel(pool()).read('sim-project-1', NOW),
  );
  read('overview-activity', 'the same overview, its state known: the activity alone', async () => {
    const m = new OverviewReadModel(pool());
    const { state } = await m.read('sim-project-1', NOW);
    sent = [];
    return m.read('sim-project-1', new Date(NOW.getTime() + 1000), false, state!);
  });
  read('insights', 'GET /api/admin/insights (and the deprecated dashboard/executive)', () =>
    new InsightsReadModel(ds, (p) => new IdentityReadModel(ds).countMembersOfProjects(p)).report(NOW),
  );
  read('lifecycle', 'GET /api/admin/insights/lifecycle', () => new LifecycleReadModel(ds).summary(NOW, null));
  read('project-status', 'GET /api/admin/projects/{projectId}/status', () =>
    new ProjectStatusReadModel(ds).status('sim-project-1', NOW),
  );

  it('are the checked-in files', () => {
    const files = readdirSync(DIR).filter((f) => f.endsWith('.sql'));
    if (process.env.UPDATE_QUERIES === '1') {
      for (const f of files) if (!rendered.has(f.slice(0, -4))) unlinkSync(join(DIR, f));
      for (const [name, text] of rendered) writeFileSync(join(DIR, `${name}.sql`), text);
      return;
    }
    expect(files.sort()).toEqual([...rendered.keys()].map((n) => `${n}.sql`).sort());
    for (const [name, text] of rendered) expect(readFileSync(join(DIR, `${name}.sql`), 'utf8')).toBe(text);
  });
});
