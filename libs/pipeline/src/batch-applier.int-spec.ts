import type { PoolClient } from 'pg';
import { Database } from '@flaglens/persistence';
import { Client } from 'pg';
import {
  allProjections,
  CHANGE_CHANNEL,
  decodeChanges,
  dropsOf,
  FLAG_EVENTS_READS,
  OVERVIEW_READS,
  OVERVIEW_STATE_READS,
  type Changes,
  type Projection,
  type Reads,
  type SourcedEvent,
} from '@flaglens/projections';
import { testEvent } from '@flaglens/testing/test-events';
import { createTestDatabase, type TestDatabase } from '@flaglens/testing/support/test-database';
import { BatchApplier } from './batch-applier';
import { OffsetConflictError } from './batch-transaction';

/**
 * A projection whose code or whose rows fail for one event: stands for any projection bug or value the
 * database refuses that the contract does not foresee. It writes into a table of its own, with an index.
 */
/** The keys of a reader's answers that notices drop (none of them may drop all). */
function dropped(notices: Changes[], reads: Reads): string[] {
  return notices.map(dropsOf(reads)).flatMap((d) => {
    expect(d).not.toBe('all');
    return d === 'none' ? [] : [...d];
  });
}

class FragileProjection implements Projection {
  readonly name = 'fragile';
  readonly writes = ['fragile_notes'];
  readonly scope = 'flags';
  handles(): boolean {
    return true;
  }
  async apply(c: PoolClient, events: SourcedEvent[]): Promise<void> {
    for (const { event } of events) {
      const note = String(event.data?.note ?? '');
      if (note === 'range') throw new RangeError('Maximum call stack size exceeded');
      if (note === 'type') (null as unknown as { x: number }).x++;
      // a value longer than a btree index row can hold: SQLSTATE 54000 for this event only
      await c.query('INSERT INTO fragile_notes (id, note) VALUES ($1, $2)', [event.id, note]);
    }
  }
}

const sourced = (id: number, note: string): SourcedEvent => ({
  event: testEvent(id, 'feature-updated', { featureName: `f${id}`, project: 'default', data: { note } }),
  knownType: true,
  topic: 't',
  partition: 0,
  offset: id - 1,
});

/** The batch transaction isolates the one event a failure belongs to (real Postgres). */
describe('BatchApplier isolates failing events (real Postgres)', () => {
  let db: TestDatabase;
  let ds: Database;

  beforeAll(async () => {
    db = await createTestDatabase('batch_applier');
    await db.query('CREATE TABLE public.fragile_notes (id bigint PRIMARY KEY, note text NOT NULL)');
    await db.query('CREATE INDEX fragile_notes_note ON public.fragile_notes (note)');
    ds = new Database({ url: db.url, max: 2 });
  });
  afterAll(async () => {
    await ds.end();
    await db.drop();
  });

  it('dead-letters an event whose projection throws or whose row the database refuses, and applies its neighbours', async () => {
    const applier = new BatchApplier(ds, 'g', { kind: 'active' }, [
      ...allProjections(),
      new FragileProjection(),
    ]);
    const huge =
      'x'.repeat(4000) + Array.from({ length: 4000 }, (_, i) => String.fromCharCode(0x4e00 + i)).join('');
    const batch = [
      sourced(1, 'fine'),
      sourced(2, 'range'),
      sourced(3, 'fine too'),
      sourced(4, 'type'),
      sourced(5, huge),
      sourced(6, 'last'),
    ];
    expect(await applier.loadPosition('t', 0)).toBe(0);
    const outcome = await applier.apply({
      topic: 't',
      partition: 0,
      expectedOffset: 0,
      nextOffset: 6,
      accepted: batch,
      dead: [],
    });
    expect(outcome.stored).toBe(3);
    expect(outcome.rejected.map((r) => [r.eventId, r.code])).toEqual([
      [2, 'projection-error'],
      [4, 'projection-error'],
      [5, 'db-rejected'],
    ]);
    const dead = await db.query<{
      event_id: string;
      reason_code: string;
      reason: string;
      message_value: Buffer;
    }>('SELECT event_id, reason_code, reason, message_value FROM dead_letters ORDER BY event_id');
    expect(dead.map((d) => [Number(d.event_id), d.reason_code])).toEqual([
      [2, 'projection-error'],
      [4, 'projection-error'],
      [5, 'db-rejected'],
    ]);
    expect(dead[0].reason).toBe('RangeError in projection code: Maximum call stack size exceeded');
    expect(dead[1].reason).toMatch(/^TypeError in projection code: /);
    expect(dead[2].reason).toMatch(/^database refused the event \(SQLSTATE 54000\): index row/);
    expect(JSON.parse(dead[2].message_value.toString()).id).toBe(5);
    // the neighbours are applied in full: event log, every projection, the position
    const log = await db.query<{ id: string }>('SELECT id FROM event_log ORDER BY id');
    expect(log.map((r) => Number(r.id))).toEqual([1, 3, 6]);
    const notes = await db.query<{ id: string }>('SELECT id FROM public.fragile_notes ORDER BY id');
    expect(notes.map((r) => Number(r.id))).toEqual([1, 3, 6]);
    const pos = await db.query<{ next_offset: string }>('SELECT next_offset FROM projector_offsets');
    expect(Number(pos[0].next_offset)).toBe(6);
  });

  it('does not dead-letter events for a failure of the database or the schema: the batch fails whole', async () => {
    const applier = new BatchApplier(ds, 'g2', { kind: 'active' }, [
      ...allProjections(),
      new FragileProjection(),
    ]);
    expect(await applier.loadPosition('t', 1)).toBe(0);
    await db.query('ALTER TABLE public.fragile_notes RENAME TO fragile_notes_away');
    try {
      await expect(
        applier.apply({
          topic: 't',
          partition: 1,
          expectedOffset: 0,
          nextOffset: 2,
          accepted: [sourced(11, 'a'), sourced(12, 'b')],
          dead: [],
        }),
      ).rejects.toMatchObject({ code: '42P01' });
    } finally {
      await db.query('ALTER TABLE public.fragile_notes_away RENAME TO fragile_notes');
    }
    expect(await db.query(`SELECT * FROM dead_letters WHERE event_id IN (11, 12)`)).toHaveLength(0);
    expect(await db.query(`SELECT * FROM event_log WHERE id IN (11, 12)`)).toHaveLength(0);
  });

  it('fails a batch whose partition moved on at once, without applying it again event by event', async () => {
    // a member that lost its partition in a rebalance still applies what it fetched: its batch must fail in
    // one transaction, not be redone event by event (thousands of savepoints for a batch of thousands, during
    // which the member neither heartbeats nor rejoins)
    const stages: string[] = [];
    const applier = new BatchApplier(
      ds,
      'g-moved',
      { kind: 'active' },
      allProjections(),
      undefined,
      (stage) => stages.push(stage),
    );
    expect(await applier.loadPosition('t', 7)).toBe(0);
    await db.query(
      `UPDATE projector_offsets SET next_offset = 3 WHERE group_id = 'g-moved' AND topic = 't' AND partition = 7`,
    );
    await expect(
      applier.apply({
        topic: 't',
        partition: 7,
        expectedOffset: 0,
        nextOffset: 3,
        accepted: [sourced(71, 'a'), sourced(72, 'b'), sourced(73, 'c')].map((s) => ({ ...s, partition: 7 })),
        dead: [],
      }),
    ).rejects.toThrow(OffsetConflictError);
    expect(stages.filter((s) => s === 'begin')).toHaveLength(1);
    expect(await db.query(`SELECT * FROM event_log WHERE id IN (71, 72, 73)`)).toHaveLength(0);
    expect(await db.query(`SELECT * FROM dead_letters WHERE event_id IN (71, 72, 73)`)).toHaveLength(0);
  });

  it('times each stage of a batch by its name, in the order the transaction runs them', async () => {
    const stages: string[] = [];
    const applier = new BatchApplier(
      ds,
      'g-stages',
      { kind: 'active' },
      allProjections(),
      undefined,
      (stage) => stages.push(stage),
    );
    expect(await applier.loadPosition('t', 8)).toBe(0);
    const created = {
      event: testEvent(81, 'feature-created', { featureName: 'f81', project: 'default' }),
      knownType: true,
      topic: 't',
      partition: 8,
      offset: 0,
    };
    const dead = { topic: 't', partition: 8, offset: 1, key: null, value: Buffer.from('{'), eventId: null };
    await applier.apply({
      topic: 't',
      partition: 8,
      expectedOffset: 0,
      nextOffset: 2,
      accepted: [created],
      dead: [{ ...dead, code: 'malformed-json' as const, reason: 'unexpected end' }],
    });
    const projections = allProjections()
      .filter((p) => p.handles('feature-created'))
      .map((p) => p.name);
    expect(stages).toEqual([
      'begin',
      'event-log',
      ...projections,
      'changes',
      'notify',
      'dead-letters',
      'offsets',
      'commit',
    ]);
  });

  it('applies batches of several partitions in one transaction, each position guarded, all or nothing', async () => {
    const applier = new BatchApplier(ds, 'g3', { kind: 'active' }, allProjections());
    const on = (partition: number, ids: number[], first: number): SourcedEvent[] =>
      ids.map((id, i) => ({ ...sourced(id, 'grouped'), partition, offset: first + i }));
    for (const p of [2, 3, 4]) expect(await applier.loadPosition('t', p)).toBe(0);
    const outcomes = await applier.applyGroup([
      {
        topic: 't',
        partition: 2,
        expectedOffset: 0,
        nextOffset: 3,
        accepted: on(2, [21, 22, 23], 0),
        dead: [],
      },
      // 31 again: stored once, by the partition where it comes first; the other counts it a duplicate
      { topic: 't', partition: 3, expectedOffset: 0, nextOffset: 2, accepted: on(3, [31, 32], 0), dead: [] },
      { topic: 't', partition: 4, expectedOffset: 0, nextOffset: 2, accepted: on(4, [31, 41], 0), dead: [] },
    ]);
    expect(outcomes.map((o) => [o.stored, o.duplicates])).toEqual([
      [3, 0],
      [2, 0],
      [1, 1],
    ]);
    expect(outcomes[2].storedEvents.map((s) => s.event.id)).toEqual([41]);
    const positions = async () =>
      (
        await db.query<{ partition: number; next_offset: string }>(
          `SELECT partition, next_offset FROM projector_offsets WHERE group_id = 'g3' ORDER BY partition`,
        )
      ).map((r) => [r.partition, Number(r.next_offset)]);
    expect(await positions()).toEqual([
      [2, 3],
      [3, 2],
      [4, 2],
    ]);
    const ids = async () =>
      (await db.query<{ id: string }>(`SELECT id FROM event_log WHERE id BETWEEN 21 AND 59 ORDER BY id`)).map(
        (r) => Number(r.id),
      );
    expect(await ids()).toEqual([21, 22, 23, 31, 32, 41]);

    // one partition's guard fails (its position is not the one expected): nothing of the group is written
    await expect(
      applier.applyGroup([
        { topic: 't', partition: 2, expectedOffset: 3, nextOffset: 4, accepted: on(2, [51], 3), dead: [] },
        { topic: 't', partition: 3, expectedOffset: 0, nextOffset: 3, accepted: on(3, [52], 2), dead: [] },
      ]),
    ).rejects.toThrow(OffsetConflictError);
    expect(await ids()).toEqual([21, 22, 23, 31, 32, 41]);
    expect(await positions()).toEqual([
      [2, 3],
      [3, 2],
      [4, 2],
    ]);
    // two batches of one partition are never grouped
    await expect(
      applier.applyGroup([
        { topic: 't', partition: 2, expectedOffset: 3, nextOffset: 4, accepted: on(2, [51], 3), dead: [] },
        { topic: 't', partition: 2, expectedOffset: 4, nextOffset: 5, accepted: on(2, [52], 4), dead: [] },
      ]),
    ).rejects.toThrow('one batch per partition');
  });

  it('names every changed flag, project and project state to listeners, however many a batch changes', async () => {
    const listener = new Client({ connectionString: db.url });
    await listener.connect();
    try {
      const notices: string[] = [];
      listener.on('notification', (m) => notices.push(m.payload ?? ''));
      await listener.query(`LISTEN ${CHANGE_CHANNEL}`);
      const applier = new BatchApplier(ds, 'g-notify', { kind: 'active' }, allProjections());
      expect(await applier.loadPosition('t', 9)).toBe(0);
      // 600 flags with long names in 300 projects: more names than one NOTIFY payload (8000 bytes) holds
      const name = (i: number) => `a-flag-with-a-rather-long-name-${String(i).padStart(4, '0')}`;
      const accepted: SourcedEvent[] = Array.from({ length: 600 }, (_, i) => ({
        event: testEvent(5000 + i, 'feature-created', {
          featureName: name(i),
          project: `notify-p${i % 300}`,
          data: { type: 'release' },
        }),
        knownType: true,
        topic: 't',
        partition: 9,
        offset: i,
      }));
      await applier.applyGroup([
        { topic: 't', partition: 9, expectedOffset: 0, nextOffset: 600, accepted, dead: [] },
      ]);
      for (let i = 0; i < 50 && notices.length === 0; i++) await new Promise((r) => setTimeout(r, 20));
      await new Promise((r) => setTimeout(r, 100)); // the notices of one commit arrive together
      const decoded = notices.map(decodeChanges);
      // before: one notice of "everything", which empties every cache of the api on each such batch
      expect(decoded.length).toBeGreaterThan(1);
      expect(dropped(decoded, FLAG_EVENTS_READS).sort()).toEqual(
        accepted.map((s) => s.event.featureName).sort(),
      );
      const projects = new Set(Array.from({ length: 300 }, (_, i) => `notify-p${i}`));
      expect(new Set(dropped(decoded, OVERVIEW_READS))).toEqual(projects);
      // new flags change their projects' overview state
      expect(new Set(dropped(decoded, OVERVIEW_STATE_READS))).toEqual(projects);

      // a strategy of each: every project's activity, no project's state
      notices.length = 0;
      const strategies: SourcedEvent[] = accepted.map((s, i) => ({
        event: testEvent(6000 + i, 'feature-strategy-update', {
          featureName: s.event.featureName,
          project: s.event.project,
          environment: 'production',
        }),
        knownType: true,
        topic: 't',
        partition: 9,
        offset: 600 + i,
      }));
      await applier.applyGroup([
        { topic: 't', partition: 9, expectedOffset: 600, nextOffset: 1200, accepted: strategies, dead: [] },
      ]);
      for (let i = 0; i < 50 && notices.length === 0; i++) await new Promise((r) => setTimeout(r, 20));
      await new Promise((r) => setTimeout(r, 100));
      const after = notices.map(decodeChanges);
      expect(new Set(dropped(after, OVERVIEW_READS))).toEqual(projects);
      expect(dropped(after, OVERVIEW_STATE_READS)).toEqual([]);
    } finally {
      await listener.end();
    }
  });
});
