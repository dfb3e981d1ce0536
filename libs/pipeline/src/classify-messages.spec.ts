import { classifyMessages, storableText } from './classify-messages';

describe('classifyMessages', () => {
  it('writes every U+0000 of a reason as an escape (Postgres text cannot hold it)', () => {
    expect(storableText('a\u0000b\u0000c')).toBe('a\\u0000b\\u0000c');
    const value = Buffer.from('{"id": 1, "type": "\u0000\u0000", oops');
    const { dead } = classifyMessages('t', 0, [{ offset: 0, key: null, value }], {
      allowUnknownTypes: false,
      maxBytes: 1 << 20,
    });
    expect(dead).toHaveLength(1);
    expect(dead[0].reason.includes('\u0000')).toBe(false);
  });

  it('dead-letters an event whose indexed text fields hold U+0000, keeping the raw value', () => {
    const e = {
      id: 1,
      createdAt: '2026-01-01T00:00:00.000Z',
      type: 'feature-created',
      createdBy: 'a',
      createdByUserId: null,
      environment: null,
      project: 'p',
      featureName: 'x\u0000y',
      data: null,
      preData: null,
      tags: [],
    };
    const value = Buffer.from(JSON.stringify(e));
    const { accepted, dead } = classifyMessages('t', 0, [{ offset: 3, key: null, value }], {
      allowUnknownTypes: false,
      maxBytes: 1 << 20,
    });
    expect(accepted).toHaveLength(0);
    expect(dead[0]).toMatchObject({ offset: 3, code: 'invalid-field', eventId: 1 });
    expect(dead[0].value?.equals(value)).toBe(true);
  });

  it('EVENT_FORMAT=debezium: maps inserts, skips tombstones, dead-letters updates with the reason', () => {
    const row = {
      id: 9,
      created_at: '2026-01-01T00:00:00.123456Z',
      type: 'feature-created',
      created_by: 'a',
      created_by_user_id: null,
      data: '{"name":"x","project":"p"}',
      pre_data: null,
      tags: null,
      feature_name: 'x',
      project: 'p',
      environment: null,
    };
    const env = (op: string, after = row) =>
      Buffer.from(JSON.stringify({ before: op === 'c' ? null : row, after, op, source: {} }));
    const { accepted, dead } = classifyMessages(
      't',
      0,
      [
        { offset: 0, key: Buffer.from('x'), value: env('c') },
        { offset: 1, key: Buffer.from('x'), value: null },
        { offset: 2, key: Buffer.from('x'), value: env('u', { ...row, created_by: 'b' }) },
        // Unleash's announcer: announced set, the event unchanged (the row before known): skipped
        {
          offset: 3,
          key: Buffer.from('x'),
          value: env('u', { ...row, announced: true } as typeof row),
        },
      ],
      { allowUnknownTypes: false, maxBytes: 1 << 20, format: 'debezium' },
    );
    expect(accepted).toHaveLength(1);
    expect(accepted[0].event).toMatchObject({
      id: 9,
      featureName: 'x',
      createdAt: '2026-01-01T00:00:00.123Z',
    });
    // the stored body is the contract's event, not Debezium's envelope
    expect(JSON.parse(String(accepted[0].raw))).toMatchObject({ id: 9, type: 'feature-created', tags: [] });
    expect(dead).toHaveLength(1);
    expect(dead[0]).toMatchObject({ offset: 2, code: 'unsupported-change' });
    expect(dead[0].reason).toMatch(/^update of event 9 in Unleash's events table/);
  });
});

describe('a misconfigured topic is refused (topicSetupProblem)', () => {
  const row = (id: number, flag: string) => ({
    id,
    created_at: '2026-11-01T10:00:00.123Z',
    type: 'feature-created',
    created_by: 'admin',
    created_by_user_id: 1,
    data: JSON.stringify({ name: flag, project: 'default', type: 'release' }),
    pre_data: null,
    tags: null,
    feature_name: flag,
    project: 'default',
    environment: null,
  });
  const envelope = (id: number, flag: string) =>
    Buffer.from(JSON.stringify({ before: null, after: row(id, flag), op: 'c', source: { table: 'events' } }));
  const flattened = (id: number, flag: string) => Buffer.from(JSON.stringify(row(id, flag)));
  const contractEvent = (id: number, flag: string) =>
    Buffer.from(
      JSON.stringify({
        id,
        createdAt: '2026-11-01T10:00:00.123Z',
        type: 'feature-created',
        createdBy: 'admin',
        featureName: flag,
        project: 'default',
        data: null,
        preData: null,
        tags: [],
        environment: null,
      }),
    );
  const classify = (format: 'unleash' | 'debezium', key: string | null, value: Buffer) =>
    classifyMessages('t', 0, [{ offset: 7, key: key === null ? null : Buffer.from(key), value }], {
      allowUnknownTypes: true,
      maxBytes: 1 << 20,
      format,
    });

  it.each([['{"id":42}'], ['{"schema":{"type":"struct"},"payload":{"id":42}}'], [' {"id": 42} ']])(
    'EVENT_FORMAT=debezium, a change keyed by its row (%s): refused, naming the relay',
    (key) => {
      const c = classify('debezium', key, envelope(42, 'flag-a'));
      expect(c.accepted).toEqual([]);
      expect(c.dead).toEqual([]);
      expect(c.refused).toEqual({ offset: 7, reason: expect.stringMatching(/straight from Kafka Connect/) });
      expect(c.refused!.reason).toContain('flaglens source debezium --from');
      // the same for a change Debezium's key marks even when it is dead-lettered otherwise (an update)
      const update = Buffer.from(
        JSON.stringify({
          before: row(42, 'flag-a'),
          after: { ...row(42, 'flag-a'), type: 'x' },
          op: 'u',
          source: {},
        }),
      );
      expect(classify('debezium', key, update).refused).toBeDefined();
    },
  );

  it('EVENT_FORMAT=debezium, a change keyed by something other than its flag (or nothing): refused', () => {
    expect(classify('debezium', 'flag-b', flattened(42, 'flag-a')).refused?.reason).toMatch(
      /keyed "flag-b", not by its flag \("flag-a"\)/,
    );
    expect(classify('debezium', null, envelope(42, 'flag-a')).refused?.reason).toMatch(/keyed by nothing/);
  });

  it('EVENT_FORMAT=debezium, what the relay writes is accepted: a change keyed by its flag, a contract event as keyed', () => {
    const relayed = classify('debezium', 'flag-a', envelope(42, 'flag-a'));
    expect(relayed.refused).toBeUndefined();
    expect(relayed.dead).toEqual([]);
    expect(relayed.accepted).toHaveLength(1);
    // SDK usage shares the topic, keyed `instance` whatever it names
    const sdk = classify('debezium', 'instance', contractEvent(43, 'flag-a'));
    expect(sdk.refused).toBeUndefined();
    expect(sdk.accepted).toHaveLength(1);
  });

  it.each([
    ['the envelope', envelope(42, 'flag-a')],
    ['the flattened row', flattened(42, 'flag-a')],
    [
      'the envelope with a schema',
      Buffer.from(JSON.stringify({ schema: {}, payload: JSON.parse(envelope(42, 'flag-a').toString()) })),
    ],
  ])(
    'EVENT_FORMAT=unleash, a Debezium change (%s): refused, naming EVENT_FORMAT=debezium',
    (_what, value) => {
      const c = classify('unleash', 'flag-a', value);
      expect(c).toEqual({
        accepted: [],
        dead: [],
        refused: { offset: 7, reason: expect.stringMatching(/set EVENT_FORMAT=debezium/) },
      });
    },
  );

  it('EVENT_FORMAT=unleash: other invalid values are still dead-lettered, valid ones accepted', () => {
    const c = classify('unleash', 'flag-a', Buffer.from('{"id": 1, "op": "c"}'));
    expect(c.refused).toBeUndefined();
    expect(c.dead).toHaveLength(1);
    expect(classify('unleash', '{"id":42}', contractEvent(42, 'flag-a')).accepted).toHaveLength(1);
  });
});
