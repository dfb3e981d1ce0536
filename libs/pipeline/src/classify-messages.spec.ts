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
        { offset: 0, key: Buffer.from('{"id":9}'), value: env('c') },
        { offset: 1, key: Buffer.from('{"id":9}'), value: null },
        { offset: 2, key: Buffer.from('{"id":9}'), value: env('u', { ...row, created_by: 'b' }) },
        // Unleash's announcer: announced set, the event unchanged (the row before known): skipped
        {
          offset: 3,
          key: Buffer.from('{"id":9}'),
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
