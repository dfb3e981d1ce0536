import { Pool, type PoolClient } from 'pg';
import type { FlagEvent } from '@flaglens/contract';
import { createTestDatabase, type TestDatabase } from '@flaglens/testing/support/test-database';
import { interleavedBatches, testEvent } from '@flaglens/testing/test-events';
import { appendEvents } from './event-log.projection';
import type { SourcedEvent } from '../projection';
import { EventLogReadModel, SEARCH_TEXT } from './event-log.read-model';
import { isSearchRefusal, parseEventSearch, type EventSearch } from './event-search.logic';
import { searchTexts } from './search-text';
import { backfillSearchTexts } from './event-log-search.migration';
import { SEARCH_COUNTS_FROM_LOG } from './event-search-speed.migration';
import { ENVIRONMENT_TYPE_COUNTS_FROM_LOG } from './event-search-pairs.migration';

const TYPES = [
  'feature-created',
  'feature-updated',
  'feature-environment-enabled',
  'project-created',
  'user-created',
];
const PROJECTS = [null, 'default', 'alpha', 'Beta_2'];
const ENVS = [null, 'development', 'production'];

/** A varied history: every filtered field takes several values (nulls too), times repeat (the id breaks ties). */
function history(n: number): FlagEvent[] {
  return Array.from({ length: n }, (_, k) => {
    const i = k + 1;
    return testEvent(i, TYPES[i % TYPES.length], {
      createdAt: new Date(Date.UTC(2026, 0, 1) + Math.floor(i / 3) * 3_600_000).toISOString(),
      featureName: i % 5 === 0 ? null : `flag-${i % 11}`,
      project: PROJECTS[i % PROJECTS.length],
      environment: ENVS[i % ENVS.length],
      createdBy: i % 4 === 0 ? 'Carol@Example.com' : 'admin',
      createdByUserId: i % 9 === 0 ? null : (i % 3) + 1,
      data: i % 6 === 0 ? null : { name: `Flag-${i % 11}`, note: i % 13 === 0 ? '100% sure_x' : 'plain' },
      preData: i % 7 === 0 ? { name: `Old-${i % 5}`, enabled: true } : null,
      tags: i % 8 === 0 ? [{ type: 'simple', value: 'Needle' }] : null,
      groupId: i % 10 === 0 ? `g${i % 3}` : undefined,
    });
  });
}

/** `ILIKE pattern` as Postgres reads it (`%`, `_`, `\` escapes), for the oracle. */
function ilike(text: string | null, pattern: string): boolean {
  if (text === null) return false;
  let re = '';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === '\\' && i + 1 < pattern.length) re += pattern[++i].replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    else if (c === '%') re += '[\\s\\S]*';
    else if (c === '_') re += '[\\s\\S]';
    else re += c.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${re}$`, 'i').test(text);
}

const FIELDS: Record<string, (e: FlagEvent) => string | null> = {
  id: (e) => String(e.id),
  group_id: (e) => e.groupId ?? null,
  feature_name: (e) => e.featureName,
  project: (e) => e.project,
  type: (e) => e.type,
  created_by_user_id: (e) => (e.createdByUserId === null ? null : String(e.createdByUserId)),
  environment: (e) => e.environment,
};

/** The reference's answer, computed over the events in memory. */
function oracle(events: FlagEvent[], s: EventSearch, restricted: boolean): { ids: number[]; total: number } {
  const matching = events
    .filter((e) =>
      s.in.every((f) => {
        const v = FIELDS[f.column](e);
        const numeric = f.column === 'id' || f.column === 'created_by_user_id';
        return v !== null && f.values.some((w) => (numeric ? Number(w) === Number(v) : w === v));
      }),
    )
    .filter((e) => s.from === null || e.createdAt >= `${s.from}T00:00:00.000Z`)
    .filter((e) => s.before === null || e.createdAt < `${s.before}T00:00:00.000Z`)
    .filter((e) => {
      if (s.query === null) return true;
      const t = searchTexts(e);
      const p = `%${s.query}%`;
      return ilike(t.data, p) || ilike(t.tags, p) || ilike(t.preData, p);
    })
    .filter((e) => !restricted || e.project !== null)
    .sort((a, b) => (a.createdAt < b.createdAt ? 1 : a.createdAt > b.createdAt ? -1 : b.id - a.id));
  return { ids: matching.slice(s.offset, s.offset + s.limit).map((e) => e.id), total: matching.length };
}

const SEARCHES: Record<string, unknown>[] = [
  {},
  { limit: '7', offset: '3' },
  { offset: '2990' },
  { limit: '1000' },
  { type: 'IS:feature-created' },
  { type: 'IS_ANY_OF:user-created,project-created', limit: '200' },
  { project: 'IS:alpha' },
  { project: 'IS_ANY_OF:Beta_2,default', environment: 'IS:production' },
  { feature: 'IS:flag-3' },
  { feature: 'IS_ANY_OF:flag-3,flag-4', createdBy: 'IS:2' },
  { createdBy: 'IS_ANY_OF:1,3' },
  // one filter's values merged from their own index scans: repeated values, an offset past the first page
  { project: 'IS_ANY_OF:alpha,default,alpha', offset: '40', limit: '30' },
  { createdBy: 'IS_ANY_OF:1,01,3', from: 'IS:2026-01-10', offset: '7' },
  // a project and a type (counted as a pair), the page read from the project's index
  { project: 'IS_ANY_OF:alpha,default', type: 'IS_ANY_OF:feature-created,user-created', offset: '3' },
  { type: 'IS:feature-updated', project: 'IS:Beta_2', to: 'IS:2026-01-20' },
  { id: 'IS_ANY_OF:5,17,2999' },
  { groupId: 'IS:g1' },
  // an environment and a type (counted as a pair)
  { environment: 'IS:development', type: 'IS:feature-updated' },
  {
    type: 'IS_ANY_OF:feature-updated,feature-created',
    environment: 'IS_ANY_OF:production,development',
    offset: '4',
  },
  { from: 'IS:2026-01-10' },
  { to: 'IS:2026-01-10' },
  { from: 'IS:2026-01-10', to: 'IS:2026-01-12', limit: '1000' },
  { query: 'needle' },
  { query: 'FLAG-3' },
  { query: 'old-2' },
  { query: '"enabled": true' },
  { query: '100\\% sure' },
  { query: '100% s' },
  { query: 'sure_x' },
  { query: 'e_d' },
  { query: 'no such text' },
  { query: 'plain', project: 'IS:alpha', offset: '5', limit: '5' },
  { type: 'IS:' },
];

describe('event search (real Postgres)', () => {
  let db: TestDatabase;
  let pool: Pool;
  let c: PoolClient;
  let model: EventLogReadModel;
  const events = history(3000);
  /** SDK traffic on the topic: stored, never searched (Unleash's log has none). */
  const sdk = [
    testEvent(900_001, 'client-metrics', {
      createdByUserId: null,
      createdBy: 'unleash-last-seen',
      project: 'alpha',
    }),
    testEvent(900_002, 'client-register', { createdByUserId: 99, data: { appName: 'Flag-3' } }),
  ];
  const sourced = (list: FlagEvent[]): SourcedEvent[] =>
    list.map((event, i) => ({ event, knownType: true, topic: 't', partition: 0, offset: i }));

  beforeAll(async () => {
    db = await createTestDatabase('event_search');
    const schema = (await db.query<{ s: string }>(`SELECT current_schema() AS s`))[0].s;
    pool = new Pool({
      connectionString: db.url,
      max: 2,
      options: `-c search_path=${schema},public -c timezone=UTC`,
    });
    c = await pool.connect();
    await c.query('BEGIN');
    await appendEvents(c, sourced([...events, ...sdk]));
    await c.query('COMMIT');
    model = new EventLogReadModel({ pool: () => pool });
  });
  afterAll(async () => {
    c.release();
    await pool.end();
    await db.drop();
  });

  it.each(SEARCHES.map((q) => [JSON.stringify(q), q] as const))(
    'answers %s as the reference would (ids, order, total)',
    async (_name, q) => {
      const s = parseEventSearch(q);
      if (isSearchRefusal(s)) throw new Error(s.message);
      for (const restricted of [false, true]) {
        const got = await model.searchEvents(s, restricted);
        const want = oracle(events, s, restricted);
        expect({
          ids: got.bodies.map((b) => (JSON.parse(b) as { id: number }).id),
          total: got.total,
        }).toEqual(want);
      }
      // the filters are selective: the searches above are not all trivially empty or full
      expect(oracle(events, s, false).total).toBeLessThanOrEqual(events.length);
    },
  );

  it('the fixture exercises every filter (none of the filtered searches is empty but one)', () => {
    const empty = SEARCHES.filter((q) => {
      const s = parseEventSearch(q) as EventSearch;
      return oracle(events, s, false).total === 0;
    });
    expect(empty).toEqual([{ query: 'no such text' }]);
  });

  it('leaves out the events naming a hidden project for a restricted caller', async () => {
    const s = parseEventSearch({ limit: '1000' }) as EventSearch;
    const got = await model.searchEvents(s, true, ['alpha']);
    const want = events.filter((e) => e.project !== null && e.project !== 'alpha');
    expect(got.total).toBe(want.length);
    expect(got.bodies.every((b) => (JSON.parse(b) as FlagEvent).project !== 'alpha')).toBe(true);
  });

  it('a replay of the same events stores nothing twice and leaves the search texts as they were', async () => {
    const before = await c.query(`SELECT id, data_text, tags_text, pre_data_text FROM event_log ORDER BY id`);
    await c.query('BEGIN');
    expect(await appendEvents(c, sourced(events))).toEqual([]);
    await c.query('COMMIT');
    const after = await c.query(`SELECT id, data_text, tags_text, pre_data_text FROM event_log ORDER BY id`);
    expect(after.rows).toEqual(before.rows);
    expect(before.rows[6]).toEqual({
      id: '7',
      data_text: '{"name":"Flag-7","note":"plain"}',
      tags_text: '[]',
      pre_data_text: '{"name": "Old-2", "enabled": true}',
    });
  });

  it("the migration's backfill computes from stored bodies the texts the projector writes", async () => {
    const texts = `SELECT id, data_text, tags_text, pre_data_text FROM event_log ORDER BY id`;
    const written = (await c.query(texts)).rows;
    await c.query(`UPDATE event_log SET data_text = NULL, tags_text = NULL, pre_data_text = NULL`);
    await backfillSearchTexts(
      async (sql, params) => (await c.query<{ id: string; body: string }>(sql, params)).rows,
    );
    expect((await c.query(texts)).rows).toEqual(written);
  });

  it('pre_data_text is what Postgres prints for the value as jsonb', async () => {
    const r = await c.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM event_log
        WHERE pre_data_text IS DISTINCT FROM ((body::jsonb) -> 'preData')::text
          AND NOT (pre_data_text IS NULL AND (body::jsonb) -> 'preData' = 'null'::jsonb)`,
    );
    expect(r.rows[0].n).toBe(0);
  });

  /** `event_search_counts` as rows, sorted; and the same computed from the stored log by the migration's SQL. */
  const COUNT_ROWS = `SELECT dim, value, value2, day::text, with_project, n::int FROM event_search_counts
                       ORDER BY dim, value, value2, day, with_project`;
  const countsFromLog = async (client: PoolClient) => {
    await client.query('BEGIN');
    await client.query('DELETE FROM event_search_counts');
    await client.query(SEARCH_COUNTS_FROM_LOG);
    await client.query(ENVIRONMENT_TYPE_COUNTS_FROM_LOG);
    const rows = (await client.query(COUNT_ROWS)).rows;
    await client.query('ROLLBACK');
    return rows;
  };

  it("the projector's search counts are the log's counts, after a replay and in any batches' order", async () => {
    const kept = (await c.query(COUNT_ROWS)).rows;
    expect(kept.length).toBeGreaterThan(100);
    expect(kept).toEqual(await countsFromLog(c));
    // another log fed the same events in interleaved batches, some twice, with the SDK traffic in between
    const other = await createTestDatabase('event_search_interleaved');
    const schema = (await other.query<{ s: string }>(`SELECT current_schema() AS s`))[0].s;
    const otherPool = new Pool({
      connectionString: other.url,
      max: 1,
      options: `-c search_path=${schema},public`,
    });
    const o = await otherPool.connect();
    try {
      const batches = interleavedBatches([...events, ...sdk], 7, 400);
      for (const [i, b] of batches.entries()) {
        await o.query('BEGIN');
        await appendEvents(o, sourced(i % 3 === 0 ? [...b, ...(batches[i - 1] ?? [])] : b));
        await o.query('COMMIT');
      }
      expect((await o.query(COUNT_ROWS)).rows).toEqual(kept);
    } finally {
      o.release();
      await otherPool.end();
      await other.drop();
    }
  });

  it('sums the counts only where whole UTC days bound the search: in another time zone it counts the log', async () => {
    const tokyo = new Pool({
      connectionString: db.url,
      max: 2,
      options: `-c search_path=${(await c.query('SELECT current_schema() AS s')).rows[0].s},public -c timezone=Asia/Tokyo`,
    });
    try {
      for (const q of [{ from: 'IS:2026-01-10' }, { to: 'IS:2026-01-10', type: 'IS:user-created' }]) {
        const s = parseEventSearch(q) as EventSearch;
        const got = await new EventLogReadModel({ pool: () => tokyo }).searchEvents(s, false);
        // the bounds are Tokyo's midnights, as `created_at >= 'yyyy-MM-dd'` reads them there
        const bound = (d: string) => new Date(`${d}T00:00:00+09:00`).toISOString();
        const want = events.filter(
          (e) =>
            (s.from === null || e.createdAt >= bound(s.from)) &&
            (s.before === null || e.createdAt < bound(s.before)) &&
            s.in.every((f) => f.values.includes(FIELDS[f.column](e) ?? '')),
        );
        expect(got.total).toBe(want.length);
        expect(got.total).not.toBe(oracle(events, s, false).total);
      }
    } finally {
      await tokyo.end();
    }
  });

  it("the search's free-text expression is the trigram index's (the planner can read the index)", async () => {
    await c.query('BEGIN');
    await c.query('SET LOCAL enable_seqscan = off');
    const plan = await c.query<{ 'QUERY PLAN': string }>(
      `EXPLAIN SELECT id FROM event_log WHERE ${SEARCH_TEXT} ILIKE $1`,
      ['%needle%'],
    );
    await c.query('ROLLBACK');
    expect(plan.rows.map((r) => r['QUERY PLAN']).join('\n')).toContain('event_log_search_text_trgm_idx');
  });

  it('event creators: one per user id (ascending, none last as 0), named by the first event, SDK traffic left out', async () => {
    expect(await model.eventCreators()).toEqual([
      { id: 1, name: expect.any(String) },
      { id: 2, name: expect.any(String) },
      { id: 3, name: expect.any(String) },
      { id: 0, name: expect.any(String) },
    ]);
    const firstOf = (uid: number | null) => events.find((e) => e.createdByUserId === uid)!.createdBy;
    const got = await model.eventCreators();
    // the seeded users have no name: each is named by the author of their first event
    expect(got[0].name).toBe(firstOf(1));
    expect(got[1].name).toBe(firstOf(2));
    expect(got[3].name).toBe(firstOf(null));
  });
});
