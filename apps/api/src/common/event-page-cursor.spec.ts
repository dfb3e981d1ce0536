import { decodeCursor, encodeCursor } from './event-page-cursor';

describe('event page cursors', () => {
  it('round-trip; anything else is refused', () => {
    const c = { at: '1795337564234567', id: '42' };
    expect(decodeCursor(encodeCursor(c))).toEqual(c);
    expect(decodeCursor(undefined)).toBeNull();
    expect(decodeCursor('')).toBeNull();
    for (const bad of [
      'x',
      Buffer.from('["a","1"]').toString('base64url'),
      Buffer.from('["1795337564234567","1; DROP"]').toString('base64url'),
      Buffer.from('["2026-02-30 08:52:44+00","1"]').toString('base64url'),
      Buffer.from('["1","99999999999999999999"]').toString('base64url'),
      ['a'],
    ])
      expect(decodeCursor(bad)).toBeUndefined();
  });
});
