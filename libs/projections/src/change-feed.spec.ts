import { decodeChanges, encodeChanges } from './change-feed';

describe('change feed payloads', () => {
  it('round-trips the changed flag names, once each', () => {
    expect(decodeChanges(encodeChanges(['a', 'b', 'a']))).toEqual({ flags: ['a', 'b'] });
  });

  it('falls back to "everything" when the names do not fit in one NOTIFY', () => {
    const many = Array.from({ length: 2000 }, (_, i) => `flag-with-a-long-name-${i}`);
    expect(decodeChanges(encodeChanges(many))).toEqual({ flags: '*' });
  });

  it('treats an unreadable payload as "everything changed"', () => {
    expect(decodeChanges('not json')).toEqual({ flags: '*' });
    expect(decodeChanges(undefined)).toEqual({ flags: '*' });
    expect(decodeChanges('{"flags":[1]}')).toEqual({ flags: '*' });
  });
});
