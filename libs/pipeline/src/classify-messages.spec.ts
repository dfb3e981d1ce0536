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
});
