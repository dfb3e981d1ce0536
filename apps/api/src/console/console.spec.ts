import { decodeCursor, encodeCursor } from './console-reads.service';
import { partitionState } from './operations.service';

describe('the console api', () => {
  it('partition status: caught up, behind (moving), stalled (still for the stall time), unknown', () => {
    const now = Date.parse('2026-11-23T12:00:00Z');
    expect(partitionState(0, null, now, 60)).toBe('caught-up');
    expect(partitionState(5, '2026-11-23T11:59:30Z', now, 60)).toBe('behind');
    expect(partitionState(5, '2026-11-23T11:59:00Z', now, 60)).toBe('stalled');
    expect(partitionState(5, null, now, 60)).toBe('stalled');
    expect(partitionState(null, null, now, 60)).toBe('unknown');
  });

  it('event page cursors round-trip; anything else is refused', () => {
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
