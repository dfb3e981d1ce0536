import { openPool } from '@flaglens/persistence';
import { createTestDatabase, type TestDatabase } from '@flaglens/testing/support/test-database';
import { SEARCH_INDEXES } from '@flaglens/projections';
import { buildDeferredIndexes, deferSearchIndexes } from './deferred-indexes';

describe("a rebuild's search indexes, built after its bulk replay (real Postgres)", () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase('deferred_indexes');
  });
  afterAll(() => db.drop());

  const indexes = async () =>
    (
      await db.query<{ name: string; def: string }>(
        `SELECT indexname AS name, indexdef AS def FROM pg_indexes WHERE schemaname = 'flaglens_v1' ORDER BY 1`,
      )
    ).map((r) => `${r.name}: ${r.def}`);

  it('are left out, kept by definition, and built again as they were, once', async () => {
    const before = await indexes();
    for (const name of SEARCH_INDEXES) expect(before.some((i) => i.startsWith(`${name}:`))).toBe(true);
    const pool = openPool({ connectionString: db.url, max: 2 });
    try {
      await deferSearchIndexes(pool, 'flaglens_v1');
      const deferred = await indexes();
      expect(deferred.filter((i) => SEARCH_INDEXES.some((n) => i.startsWith(`${n}:`)))).toEqual([]);
      // (the definitions' own table has its key)
      expect(deferred.filter((i) => !i.startsWith('deferred_indexes')).length).toBe(
        before.length - SEARCH_INDEXES.length,
      );
      // rows stored meanwhile are in the indexes built after
      await db.query(
        `INSERT INTO flaglens_v1.event_log (id, created_at, type, created_by, body, project)
         VALUES (1, now(), 'feature-created', 'admin', '{}', 'default')`,
      );
      expect((await buildDeferredIndexes(pool, 'flaglens_v1')).sort()).toEqual([...SEARCH_INDEXES].sort());
      expect(await indexes()).toEqual(before);
      expect(await buildDeferredIndexes(pool, 'flaglens_v1')).toEqual([]);
      const [{ n }] = await db.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM flaglens_v1.event_log WHERE project = 'default'`,
      );
      expect(n).toBe(1);
    } finally {
      await pool.end();
    }
  });
});
