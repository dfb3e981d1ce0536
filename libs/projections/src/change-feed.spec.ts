import { decodeChanges, encodeChanges } from './change-feed';

describe('change feed payloads', () => {
  it('round-trips the changed flag names and projects, once each', () => {
    expect(decodeChanges(encodeChanges(['a', 'b', 'a'], ['p', 'p', 'q']))).toEqual({
      flags: ['a', 'b'],
      projects: ['p', 'q'],
    });
    expect(decodeChanges(encodeChanges(['a'], []))).toEqual({ flags: ['a'], projects: [] });
  });

  it('without projects (or "*"), any project may have changed', () => {
    expect(decodeChanges(encodeChanges(['a']))).toEqual({ flags: ['a'], projects: '*' });
    // the payload of an older projector still decodes
    expect(decodeChanges('{"flags":["a"]}')).toEqual({ flags: ['a'], projects: '*' });
    expect(decodeChanges('{"flags":["a"],"projects":[1]}')).toEqual({ flags: ['a'], projects: '*' });
  });

  it('falls back to "everything" when the names do not fit in one NOTIFY', () => {
    const many = Array.from({ length: 2000 }, (_, i) => `flag-with-a-long-name-${i}`);
    expect(decodeChanges(encodeChanges(many, ['p']))).toEqual({ flags: '*', projects: '*' });
    expect(decodeChanges(encodeChanges(['a'], many))).toEqual({ flags: '*', projects: '*' });
  });

  it('treats an unreadable payload as "everything changed"', () => {
    expect(decodeChanges('not json')).toEqual({ flags: '*', projects: '*' });
    expect(decodeChanges(undefined)).toEqual({ flags: '*', projects: '*' });
    expect(decodeChanges('{"flags":[1]}')).toEqual({ flags: '*', projects: '*' });
  });
});
