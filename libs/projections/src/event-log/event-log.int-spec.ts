import { Pool, type PoolClient } from 'pg';
import { createTestDatabase, type TestDatabase } from '@flaglens/testing/support/test-database';
import { testEvent } from '@flaglens/testing/test-events';
import { appendEvents, namedProjects } from './event-log.projection';
import type { SourcedEvent } from '../projection';
import { EventLogReadModel, type EventPageCursor, type EventScope } from './event-log.read-model';
import { toWireJson } from './event-wire';
import { parseEvent, type FlagEvent } from '@flaglens/contract';

/** The event log's append, over many COPY chunks, against real Postgres. */
describe('event log append (real Postgres)', () => {
  let db: TestDatabase;
  let pool: Pool;
  let c: PoolClient;
  let reads: Pool;

  beforeAll(async () => {
    db = await createTestDatabase('event_log');
    const schema = (await db.query<{ s: string }>(`SELECT current_schema() AS s`))[0].s;
    pool = new Pool({ connectionString: db.url, max: 1, options: `-c search_path=${schema},public` });
    c = await pool.connect();
    reads = new Pool({ connectionString: db.url, max: 1, options: `-c search_path=${schema},public` });
  });
  afterAll(async () => {
    c.release();
    await pool.end();
    await reads.end();
    await db.drop();
  });

  const sourced = (from: number, to: number, offset0: number): SourcedEvent[] =>
    Array.from({ length: to - from }, (_, i) => ({
      // a body with every character COPY text escapes, so chunk borders cannot cut an escape
      event: testEvent(from + i, 'feature-updated', {
        featureName: `f${(from + i) % 7}`,
        data: { note: 'tab\there\nnew line\r\\back' },
      }),
      knownType: true,
      topic: 't',
      partition: 0,
      offset: offset0 + i,
    }));

  it('stores a batch of many chunks whole, then only the new ids of a batch that repeats some', async () => {
    await c.query('BEGIN');
    const first = await appendEvents(c, sourced(1, 1001, 0));
    await c.query('COMMIT');
    expect(first.map((s) => s.event.id)).toEqual(Array.from({ length: 1000 }, (_, i) => i + 1));

    // ids 501..1500: the first half is already stored (the staging fallback), the second is new
    await c.query('BEGIN');
    const second = await appendEvents(c, sourced(501, 1501, 1000));
    await c.query('COMMIT');
    expect(second.map((s) => s.event.id)).toEqual(Array.from({ length: 500 }, (_, i) => i + 1001));

    const rows = await db.query<{ n: number; min: string; max: string; offsets: number }>(
      `SELECT count(*)::int AS n, min(id) AS min, max(id) AS max,
              count(*) FILTER (WHERE source_offset = CASE WHEN id <= 1000 THEN id - 1 ELSE id + 499 END)::int AS offsets
         FROM event_log`,
    );
    // every id once, each at the position it was first stored at
    expect(rows[0]).toEqual({ n: 1500, min: '1', max: '1500', offsets: 1500 });
    const body = await db.query<{ body: string }>(`SELECT body FROM event_log WHERE id = 1234`);
    expect(JSON.parse(body[0].body).data).toEqual({ note: 'tab\there\nnew line\r\\back' });
  });

  it('stores a message value as received and lists it in the wire form, whatever its layout', async () => {
    // pretty-printed, keys in another order, createdAt without milliseconds, no tags, escapes and non-ASCII
    const text = `{
\t"featureName": "raw-flag", "type": "feature-updated", "id": 9001,
  "createdAt": "2026-11-22T09:00:00+01:00", "createdBy": "zoë\\\\admin",
  "data": { "note": "quote \\" tab \\t é \\u00e9 \\u2028", "n": 1.50 },
  "preData": null, "project": "default", "environment": null, "createdByUserId": 3
}`;
    const parsed = parseEvent(Buffer.from(text));
    if (!parsed.ok) throw new Error(parsed.reason);
    const plain = { ...parsed, event: { ...parsed.event, id: 9002, featureName: 'raw-flag' } };
    await c.query('BEGIN');
    await appendEvents(c, [
      { event: parsed.event, knownType: true, topic: 't', partition: 1, offset: 5, raw: Buffer.from(text) },
      { event: plain.event, knownType: true, topic: 't', partition: 1, offset: 6 },
    ]);
    await c.query('COMMIT');
    // the body is the value byte for byte; the list renders the reference's form of each event
    expect((await db.query<{ body: string }>(`SELECT body FROM event_log WHERE id = 9001`))[0].body).toBe(
      text,
    );
    const list = await new EventLogReadModel({ pool: () => reads }).eventsOfFlag('raw-flag');
    expect(list.total).toBe(2);
    // the same createdAt: the higher id first
    expect(list.eventsJson).toBe(`${toWireJson(plain.event)},${toWireJson(parsed.event)}`);
    expect(JSON.parse(`[${list.eventsJson}]`)[1]).toMatchObject({
      createdAt: '2026-11-22T08:00:00.000Z',
      tags: [],
      data: { note: 'quote " tab \t é é \u2028', n: 1.5 },
    });
    const latest = await new EventLogReadModel({ pool: () => reads }).latestEvents(5000);
    expect(latest.total).toBe(1502);
    expect(JSON.parse(`[${latest.eventsJson}]`)).toHaveLength(1502);
    expect(latest.eventsJson).toContain(toWireJson(parsed.event));
  });

  it("stores 7+'s groups and answers them when set; lists by createdAt, then id, whatever the ids' order", async () => {
    const at = (id: number, createdAt: string, over: Record<string, unknown> = {}): SourcedEvent => ({
      event: { ...testEvent(id, 'feature-updated', { featureName: 'grouped-flag', ...over }), createdAt },
      knownType: true,
      topic: 't',
      partition: 2,
      offset: id,
    });
    await c.query('BEGIN');
    await appendEvents(c, [
      at(9101, '2026-11-22T10:00:00.000Z', { groupType: 'change-request', groupId: '17' }),
      at(9102, '2026-11-22T10:00:00.000Z'),
      // 7.0's amended user-created rows: a new, higher id with an old createdAt
      at(9103, '2020-01-01T00:00:00.000Z', { groupType: 'transaction' }),
    ]);
    await c.query('COMMIT');
    const cols = await db.query<{ id: string; group_type: string | null; group_id: string | null }>(
      `SELECT id, group_type, group_id FROM event_log WHERE id BETWEEN 9101 AND 9103 ORDER BY id`,
    );
    expect(cols.map((r) => [r.group_type, r.group_id])).toEqual([
      ['change-request', '17'],
      [null, null],
      ['transaction', null],
    ]);
    const list = JSON.parse(
      `[${(await new EventLogReadModel({ pool: () => reads }).eventsOfFlag('grouped-flag')).eventsJson}]`,
    ) as Record<string, unknown>[];
    expect(list.map((e) => e.id)).toEqual([9102, 9101, 9103]);
    expect(Object.keys(list[1]).slice(-3)).toEqual(['environment', 'groupType', 'groupId']);
    expect(list[1]).toMatchObject({ groupType: 'change-request', groupId: '17' });
    expect(Object.keys(list[0])).not.toContain('groupType');
    expect(list[2]).toMatchObject({ groupType: 'transaction' });
    expect(Object.keys(list[2])).not.toContain('groupId');
  });

  it('keeps the release said by the highest event id, whatever order the batches come in', async () => {
    const model = new EventLogReadModel({ pool: () => reads });
    expect(await model.unleashRelease()).toEqual({ release: null, answeringAs: '8' });
    const said = (id: number, release?: string): SourcedEvent => ({
      event: testEvent(id, 'feature-updated', { featureName: 'release-flag' }),
      knownType: true,
      topic: 't',
      partition: id % 2,
      offset: id,
      ...(release === undefined ? {} : { release }),
    });
    const append = async (events: SourcedEvent[]) => {
      await c.query('BEGIN');
      await appendEvents(c, events);
      await c.query('COMMIT');
    };
    await append([said(9201, '6'), said(9203, '7'), said(9204)]);
    expect(await model.unleashRelease()).toEqual({ release: '7', answeringAs: '7' });
    // another partition's older event, applied later, does not take it back
    await append([said(9202, '6')]);
    expect((await model.unleashRelease()).release).toBe('7');
    // a replay of what is stored changes nothing
    await append([said(9203, '6'), said(9201, '8')]);
    expect((await model.unleashRelease()).release).toBe('7');
    await append([said(9205, '9')]);
    expect(await model.unleashRelease()).toEqual({ release: '9', answeringAs: '8' });
  });

  it("a diff's events: pages of any size, followed to the end, are the scope's events of the range", async () => {
    // a window of its own (2031), instants repeated (ids break the ties), ids not in time order
    const base = Date.UTC(2031, 0, 1);
    const kinds = ['p1', 'p2', 'p3'];
    const events: FlagEvent[] = Array.from({ length: 90 }, (_, i) => {
      const id = 9400 + ((i * 37) % 90);
      const createdAt = new Date(base + Math.floor(i / 3) * 60_000).toISOString();
      const project = kinds[i % 3];
      if (i % 11 === 0)
        // a flag's move between two projects: it names both
        return {
          ...testEvent(id, 'feature-project-change', { featureName: `m${i}`, project }),
          createdAt,
          data: { oldProject: kinds[(i + 1) % 3], newProject: project },
        };
      if (i % 13 === 0) return { ...testEvent(id, 'client-metrics'), createdAt };
      if (i % 7 === 0)
        return { ...testEvent(id, 'user-updated', { createdByUserId: 5, data: { id: 6 } }), createdAt };
      return { ...testEvent(id, 'feature-updated', { featureName: `f${i % 4}`, project }), createdAt };
    });
    await c.query('BEGIN');
    await appendEvents(
      c,
      events.map((event, i) => ({ event, knownType: true, topic: 't', partition: 3, offset: 10_000 + i })),
    );
    await c.query('COMMIT');
    const model = new EventLogReadModel({ pool: () => reads });
    const from = new Date(base + 2 * 60_000).toISOString();
    const to = new Date(base + 25 * 60_000).toISOString();
    const inRange = events
      .filter((e) => e.createdAt > from && e.createdAt <= to && e.type !== 'client-metrics')
      .sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.id - b.id);
    const cases: [EventScope, string[], (e: FlagEvent) => boolean][] = [
      [{ kind: 'project', projectId: 'p1' }, [], (e) => namedProjects(e).includes('p1')],
      // a caller who may not see p2 sees none of its moves
      [
        { kind: 'project', projectId: 'p1' },
        ['p2'],
        (e) => namedProjects(e).includes('p1') && !namedProjects(e).includes('p2'),
      ],
      [{ kind: 'flag', featureName: 'f1' }, [], (e) => e.featureName === 'f1'],
      [{ kind: 'identity', userId: 6, types: ['user-updated'] }, [], (e) => e.type === 'user-updated'],
      [{ kind: 'instance' }, ['p3'], (e) => !namedProjects(e).includes('p3')],
    ];
    for (const [scope, hidden, wanted] of cases) {
      const expected = inRange.filter(wanted).map((e) => e.id);
      expect(expected.length).toBeGreaterThan(3);
      for (const size of [1, 4, 1000]) {
        const ids: number[] = [];
        let cursor: EventPageCursor | null = null;
        let pages = 0;
        do {
          const page = await model.eventsBetween(scope, from, to, hidden, size, cursor);
          const got = (JSON.parse(`[${page.eventsJson}]`) as { id: number }[]).map((e) => e.id);
          expect(got.length).toBe(page.count);
          expect(got.length).toBeLessThanOrEqual(size);
          ids.push(...got);
          cursor = page.next;
          pages += 1;
        } while (cursor !== null && pages < 200);
        expect({ scope, hidden, size, ids }).toEqual({ scope, hidden, size, ids: expected });
        expect(pages).toBe(Math.max(1, Math.ceil(expected.length / size)));
      }
    }
  });

  it('pages order ids as numbers where instants tie: the flag list and a diff, across a digit boundary', async () => {
    // one instant, ids of 5 and 6 digits: as text "99999" sorts after "100000"
    const at = '2032-03-01T00:00:00.000Z';
    const ids = [99_998, 99_999, 100_000, 100_001, 100_002];
    await c.query('BEGIN');
    await appendEvents(
      c,
      ids.map((id, i) => ({
        event: {
          ...testEvent(id, 'feature-updated', { featureName: 'tied-flag', project: 'tied' }),
          createdAt: at,
        },
        knownType: true,
        topic: 't',
        partition: 4,
        offset: i,
      })),
    );
    await c.query('COMMIT');
    const model = new EventLogReadModel({ pool: () => reads });
    const idsOf = (json: string) => (JSON.parse(`[${json}]`) as { id: number }[]).map((e) => e.id);
    for (const size of [2, 5]) {
      const listed: number[] = [];
      let cursor: EventPageCursor | null = null;
      do {
        const page = await model.eventPage('tied-flag', [], cursor, size);
        listed.push(...idsOf(page.eventsJson));
        cursor = page.next;
      } while (cursor !== null && listed.length < 20);
      expect({ size, listed }).toEqual({ size, listed: [...ids].reverse() });
      const between: number[] = [];
      cursor = null;
      do {
        const page = await model.eventsBetween(
          { kind: 'project', projectId: 'tied' },
          '2032-02-01T00:00:00.000Z',
          at,
          [],
          size,
          cursor,
        );
        between.push(...idsOf(page.eventsJson));
        cursor = page.next;
      } while (cursor !== null && between.length < 20);
      expect({ size, between }).toEqual({ size, between: ids });
    }
  });
});
