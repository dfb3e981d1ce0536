import { Readable } from 'node:stream';
import { Pool, type PoolClient } from 'pg';
import { loadConfig } from '@flaglens/config';
import { appendEvents, EventLogReadModel, type SourcedEvent } from '@flaglens/projections';
import { testEvent } from '@flaglens/testing/test-events';
import { createTestDatabase, type TestDatabase } from '@flaglens/testing/support/test-database';
import { ChangeListener } from '../read-db/change-listener.service';
import { FlagEventsCache } from './flag-event-lists';
import type { ProjectionReads } from '../read-db/projection-reads.service';
import type { JsonBody } from '../common/json-body';
import { FlagEventLists, WHOLE_LIST_EVENTS } from './flag-event-lists';

const EVENTS = 12_000;
/** Events of the flag `ordinary`. */
const ORDINARY = 2_000;

async function text(body: JsonBody | Readable): Promise<string> {
  if (!(body instanceof Readable)) return body.bytes.toString('utf8');
  const chunks: Buffer[] = [];
  for await (const c of body) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** The statements (their text, or their name when named) `pool` is asked to run while `run` runs. */
async function statementsOf(pool: Pool, run: () => Promise<void>): Promise<string[]> {
  const statements: string[] = [];
  const query = pool.query.bind(pool) as (...a: unknown[]) => unknown;
  (pool as unknown as { query: (...a: unknown[]) => unknown }).query = (...a: unknown[]) => {
    statements.push(typeof a[0] === 'string' ? a[0] : ((a[0] as { name?: string }).name ?? '?'));
    return query(...a);
  };
  try {
    await run();
  } finally {
    delete (pool as unknown as { query?: unknown }).query;
  }
  return statements;
}

/** Long event lists are streamed from one read shared by concurrent requests (real Postgres). */
describe('FlagEventLists (real Postgres)', () => {
  let db: TestDatabase;
  let pool: Pool;
  let events: EventLogReadModel;
  let opened = 0;
  let lists: FlagEventLists;

  beforeAll(async () => {
    db = await createTestDatabase('flag_lists');
    const schema = (await db.query<{ s: string }>('SELECT current_schema() AS s'))[0].s;
    pool = new Pool({ connectionString: db.url, max: 4, options: `-c search_path=${schema},public` });
    const c: PoolClient = await pool.connect();
    const batch: SourcedEvent[] = Array.from({ length: EVENTS }, (_, i) => ({
      event: testEvent(i + 1, 'feature-updated', {
        featureName: 'long',
        // every 10th event in a private project, every 1000th a move out of it
        project: i % 10 === 3 ? 'vault' : 'default',
        data: i % 1000 === 7 ? { oldProject: 'vault', newProject: 'default' } : { seq: i },
        type: i % 1000 === 7 ? 'feature-project-change' : 'feature-updated',
      }),
      knownType: true,
      topic: null,
      partition: null,
      offset: null,
    }));
    await c.query('BEGIN');
    await appendEvents(c, batch);
    await appendEvents(c, [
      {
        event: testEvent(EVENTS + 1, 'feature-created', { featureName: 'short', project: 'default' }),
        knownType: true,
        topic: null,
        partition: null,
        offset: null,
      },
    ]);
    // an ordinary flag of a large installation (10 million events over 5,000 flags)
    await appendEvents(
      c,
      Array.from({ length: ORDINARY }, (_, i) => ({
        event: testEvent(EVENTS + 2 + i, 'feature-updated', { featureName: 'ordinary', project: 'default' }),
        knownType: true,
        topic: null,
        partition: null,
        offset: null,
      })),
    );
    await c.query('COMMIT');
    c.release();
    events = new EventLogReadModel({ pool: () => pool });
    // count the cursors opened (the read model itself, watched)
    const open = events.openEventsOfFlag.bind(events);
    events.openEventsOfFlag = (...args) => {
      opened++;
      return open(...args);
    };
    lists = listsOf(events);
  });
  /** Lists read through `model`, with a cache whose change feed is not listened to. */
  const listsOf = (model: EventLogReadModel) => {
    const config = loadConfig({ DATABASE_URL: db.url });
    const reads = { pool: () => pool } as unknown as ProjectionReads;
    return new FlagEventLists(model, reads, new FlagEventsCache(config, new ChangeListener(config), reads));
  };
  afterAll(async () => {
    await pool.end();
    await db.drop();
  });

  it('answers a short list whole, a long one as a stream equal to the whole list', async () => {
    const short = await lists.open('short', 'short', [], true);
    expect(short).not.toBeInstanceOf(Readable);
    expect(JSON.parse(await text(short))).toMatchObject({ toggleName: 'short', totalEvents: 1 });
    const long = await lists.open('long', 'long', [], true);
    expect(long).toBeInstanceOf(Readable);
    const expected = await events.eventsOfFlag('long');
    expect(await text(long)).toBe(
      `{"version":1,"toggleName":"long","events":[${expected.eventsJson}],"totalEvents":${EVENTS}}`,
    );
    expect(EVENTS).toBeGreaterThan(WHOLE_LIST_EVENTS);
  });

  it("starts answering an ordinary flag's list before it has read it whole", async () => {
    // the rows each cursor page brought, in order
    const pages: number[] = [];
    const open = events.openEventsOfFlag.bind(events);
    const watched = new EventLogReadModel({ pool: () => pool });
    watched.openEventsOfFlag = async (...args) => {
      const cursor = await open(...args);
      return {
        next: async (n: number) => {
          const page = await cursor.next(n);
          pages.push(page.length);
          return page;
        },
        close: () => cursor.close(),
      };
    };
    const fresh = listsOf(watched);
    const body = await fresh.open('ordinary', 'ordinary', [], true);
    // its head and first page are written now, from the first page alone
    expect(body).toBeInstanceOf(Readable);
    expect(pages).toEqual([WHOLE_LIST_EVENTS + 1]);
    expect(WHOLE_LIST_EVENTS + 1).toBeLessThan(ORDINARY / 4);
    const expected = await events.eventsOfFlag('ordinary');
    expect(await text(body)).toBe(
      `{"version":1,"toggleName":"ordinary","events":[${expected.eventsJson}],"totalEvents":${ORDINARY}}`,
    );
  });

  it('reads a list that fits with one statement, without a cursor', async () => {
    opened = 0;
    const statements = await statementsOf(pool, async () => {
      const short = await lists.open('short-once', 'short', [], true);
      expect(JSON.parse(await text(short))).toMatchObject({ toggleName: 'short', totalEvents: 1 });
    });
    expect(opened).toBe(0);
    expect(statements).toEqual(['flaglens-events-of-flags']);
  });

  it('reads the lists asked for in one turn of the event loop with one statement', async () => {
    opened = 0;
    let answers: string[] = [];
    const statements = await statementsOf(pool, async () => {
      // different keys, so the cache's single flight does not share them: only the statement does
      const asked: [string, string][] = [
        ['together-1', 'short'],
        ['together-2', 'nope'],
        ['together-3', 'long'],
        ['together-4', 'short'],
        ['together-5', 'a\u0000b'],
      ];
      answers = await Promise.all(
        asked.map(async ([key, name]) => text(await lists.open(key, name, [], false))),
      );
    });
    // one statement for all five; the long list is then read again through its cursor
    expect(statements.filter((s) => s === 'flaglens-events-of-flags')).toHaveLength(1);
    expect(statements).not.toContain('flaglens-events-of-flag');
    expect(opened).toBe(1);
    // each answer is the one the flag gets alone
    const alone = async (name: string) => {
      const e = await events.eventsOfFlag(name);
      return `{"version":1,"toggleName":${JSON.stringify(name)},"events":[${e.eventsJson}],"totalEvents":${e.total}}`;
    };
    expect(answers[0]).toBe(await alone('short'));
    expect(answers[1]).toBe(await alone('nope'));
    expect(answers[2]).toBe(await alone('long'));
    expect(answers[3]).toBe(answers[0]);
    expect(JSON.parse(answers[4])).toEqual({
      version: 1,
      toggleName: 'a\u0000b',
      events: [],
      totalEvents: 0,
    });
  });

  it('gives its connection back: more short lists in a row than the pool holds', async () => {
    for (let i = 0; i < 12; i++)
      expect(JSON.parse(await text(await lists.open(`short-${i}`, 'short', [], false)))).toMatchObject({
        totalEvents: 1,
      });
    expect(pool.idleCount + pool.waitingCount).toBe(pool.totalCount);
  });

  it('four concurrent requests of a long list share one cursor and get the same bytes', async () => {
    opened = 0;
    const bodies = await Promise.all(
      [0, 1, 2, 3].map(async () => text(await lists.open('long', 'long', [], true))),
    );
    expect(opened).toBe(1);
    expect(new Set(bodies).size).toBe(1);
    expect((JSON.parse(bodies[0]) as { totalEvents: number }).totalEvents).toBe(EVENTS);
  });

  it('answers a list as of an instant, streamed when long, never from nor into the cache', async () => {
    // a cache in use (its change feed listened to), so that what is kept shows
    const config = loadConfig({ DATABASE_URL: db.url });
    const listener = new ChangeListener(config);
    await listener.onModuleInit();
    const reads = { pool: () => pool, schema: undefined } as unknown as ProjectionReads;
    const cache = new FlagEventsCache(config, listener, reads);
    const cached = new FlagEventLists(events, reads, cache);
    try {
      expect(cache.usable).toBe(true);
      // the answer of now, kept
      const now = await text(await cached.open('short', 'short', [], true));
      expect(cache.get('short')).toBeDefined();
      // testEvent: event i is created at 2026-01-01 + i s
      const at = new Date(Date.UTC(2026, 0, 1) + 8_000 * 1000).toISOString();
      const key = `long\u0000at\u0000${at}`;
      const body = await cached.open(key, 'long', [], false, at);
      expect(body).toBeInstanceOf(Readable);
      const expected = await events.eventsOfFlag('long', [], at);
      expect(expected.total).toBe(8_000);
      expect(await text(body)).toBe(
        `{"version":1,"toggleName":"long","events":[${expected.eventsJson}],"totalEvents":8000}`,
      );
      // short as of an instant: whole; before the first event: empty (asked as cacheable: still not kept)
      const early = `long\u0000at\u00002026-01-01T00:00:10.000Z`;
      expect(
        JSON.parse(await text(await cached.open(early, 'long', [], true, '2026-01-01T00:00:10.000Z'))),
      ).toMatchObject({
        totalEvents: 10,
      });
      const before = `short\u0000at\u00002025-12-31T00:00:00.000Z`;
      expect(
        JSON.parse(await text(await cached.open(before, 'short', [], true, '2025-12-31T00:00:00.000Z'))),
      ).toEqual({
        version: 1,
        toggleName: 'short',
        events: [],
        totalEvents: 0,
      });
      // none of these was kept (the streamed list's bytes settle after it ends); the answer of now is the same
      await new Promise((r) => setTimeout(r, 200));
      for (const k of [key, early, before]) expect(cache.get(k)).toBeUndefined();
      expect(await text(await cached.open('short', 'short', [], true))).toBe(now);
    } finally {
      await listener.onModuleDestroy();
    }
  });

  it('leaves out the events naming a hidden project, moves out of it included', async () => {
    const body = JSON.parse(await text(await lists.open('long\u0000h', 'long', ['vault'], false))) as {
      events: { project: string; type: string }[];
      totalEvents: number;
    };
    const hidden = Array.from({ length: EVENTS }, (_, i) => i % 10 === 3 || i % 1000 === 7).filter(Boolean);
    expect(body.totalEvents).toBe(EVENTS - hidden.length);
    expect(body.events).toHaveLength(body.totalEvents);
    expect(body.events.some((e) => e.project === 'vault' || e.type === 'feature-project-change')).toBe(false);
  });
});
