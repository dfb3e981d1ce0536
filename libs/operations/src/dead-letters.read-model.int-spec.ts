import { createTestDatabase, type TestDatabase } from '@flaglens/testing/support/test-database';
import { DeadLettersReadModel } from './dead-letters.read-model';

/** The one reader of public.dead_letters, against real Postgres. */
describe('DeadLettersReadModel', () => {
  let db: TestDatabase;
  let reads: DeadLettersReadModel;

  beforeAll(async () => {
    db = await createTestDatabase('dead_letters_reads');
    reads = new DeadLettersReadModel(db);
    // ids 1..5: two reasons, one re-driven, one with a binary value, one without key or value
    await db.query(
      `INSERT INTO public.dead_letters (topic, partition, "offset", message_key, message_value, reason_code, reason, event_id, created_at)
       SELECT 't', p, o, k, v, c, r, e, '2026-11-23T12:00:00Z'::timestamptz + o * interval '1 second'
         FROM unnest($1::int[], $2::bigint[], $3::bytea[], $4::bytea[], $5::text[], $6::text[], $7::bigint[])
           AS u(p, o, k, v, c, r, e)`,
      [
        [0, 0, 1, 2, 2],
        [10, 11, 5, 7, 8],
        [Buffer.from('a'), Buffer.from('b'), null, Buffer.from('d'), Buffer.from('e')],
        [
          Buffer.from('{"id":'),
          Buffer.from([0xff, 0x00]),
          null,
          Buffer.from('x'.repeat(100)),
          Buffer.from('{}'),
        ],
        ['malformed-json', 'malformed-json', 'invalid-field', 'too-large', 'invalid-field'],
        ['cut', 'not UTF-8', 'no type', 'over the limit', 'no id'],
        [null, null, null, 42, null],
      ],
    );
    await db.query(
      `UPDATE public.dead_letters SET redriven_at = '2026-11-24T00:00:00Z', redrive_outcome = 'stored' WHERE id = 2`,
    );
    await db.query(`UPDATE public.dead_letters SET redrive_outcome = 'still invalid (x): y' WHERE id = 3`);
  });

  afterAll(async () => {
    await db?.drop();
  });

  it('lists oldest or newest first, by reason, pending only, after an id; one type without the message', async () => {
    const all = await reads.list({ limit: 10 });
    expect(all.map((d) => d.id)).toEqual([1, 2, 3, 4, 5]);
    expect(all[3]).toEqual({
      id: 4,
      topic: 't',
      partition: 2,
      offset: 7,
      reasonCode: 'too-large',
      reason: 'over the limit',
      eventId: 42,
      createdAt: '2026-11-23T12:00:07.000Z',
      redrivenAt: null,
      redriveOutcome: null,
    });
    expect(all[1]).toMatchObject({ redrivenAt: '2026-11-24T00:00:00.000Z', redriveOutcome: 'stored' });
    expect((await reads.list({ limit: 2, order: 'newest' })).map((d) => d.id)).toEqual([5, 4]);
    expect((await reads.list({ limit: 10, reason: 'malformed-json' })).map((d) => d.id)).toEqual([1, 2]);
    expect((await reads.list({ limit: 10, pending: true, afterId: 1 })).map((d) => d.id)).toEqual([3, 4, 5]);
  });

  it('one with its message; several in id order; the sizes of pending ones', async () => {
    expect(await reads.get(99)).toBeNull();
    const two = await reads.get(2);
    expect(two).toMatchObject({ id: 2, key: Buffer.from('b'), value: Buffer.from([0xff, 0x00]) });
    expect(await reads.get(3)).toMatchObject({ id: 3, key: null, value: null });
    expect((await reads.withValues([5, 1])).map((d) => [d.id, d.value?.toString()])).toEqual([
      [1, '{"id":'],
      [5, '{}'],
    ]);
    expect(await reads.pendingSizes({ limit: 10 })).toEqual([
      { id: 1, bytes: 7 },
      { id: 3, bytes: 0 },
      { id: 4, bytes: 101 },
      { id: 5, bytes: 3 },
    ]);
    expect(await reads.pendingSizes({ limit: 10, reason: 'invalid-field', afterId: 3 })).toEqual([
      { id: 5, bytes: 3 },
    ]);
  });

  it('counts all and pending, by reason code in code order', async () => {
    expect(await reads.counts()).toEqual({
      total: 5,
      pending: 4,
      byReason: [
        { reason: 'invalid-field', total: 2, pending: 2 },
        { reason: 'malformed-json', total: 2, pending: 1 },
        { reason: 'too-large', total: 1, pending: 1 },
      ],
    });
  });
});
