import { decodeChanges, encodeChanges } from './change-feed';

describe('change feed payloads', () => {
  it('round-trips the changed flag names and projects, once each, and whether identity changed', () => {
    expect(decodeChanges(encodeChanges(['a', 'b', 'a'], ['p', 'p', 'q'], false))).toEqual({
      flags: ['a', 'b'],
      projects: ['p', 'q'],
      identity: false,
    });
    expect(decodeChanges(encodeChanges(['a'], [], true))).toEqual({
      flags: ['a'],
      projects: [],
      identity: true,
    });
  });

  it('without projects (or "*"), any project may have changed; without identity, it did when a project did', () => {
    expect(decodeChanges(encodeChanges(['a']))).toEqual({ flags: ['a'], projects: '*', identity: true });
    // the payload of an older projector still decodes
    expect(decodeChanges('{"flags":["a"]}')).toEqual({ flags: ['a'], projects: '*', identity: true });
    expect(decodeChanges('{"flags":["a"],"projects":[1]}')).toEqual({
      flags: ['a'],
      projects: '*',
      identity: true,
    });
    expect(decodeChanges('{"flags":["a"],"projects":[]}')).toEqual({
      flags: ['a'],
      projects: [],
      identity: false,
    });
  });

  it('falls back to "everything" when the names do not fit in one NOTIFY', () => {
    const many = Array.from({ length: 2000 }, (_, i) => `flag-with-a-long-name-${i}`);
    const everything = { flags: '*', projects: '*', identity: true };
    expect(decodeChanges(encodeChanges(many, ['p'], false))).toEqual(everything);
    expect(decodeChanges(encodeChanges(['a'], many, false))).toEqual(everything);
  });

  it('treats an unreadable payload as "everything changed"', () => {
    const everything = { flags: '*', projects: '*', identity: true };
    expect(decodeChanges('not json')).toEqual(everything);
    expect(decodeChanges(undefined)).toEqual(everything);
    expect(decodeChanges('{"flags":[1]}')).toEqual(everything);
  });
});
