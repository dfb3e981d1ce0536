import { decodeChanges, encodeChanges, MAX_NOTICES } from './change-feed';

/** The one notice of a batch whose names fit in one. */
const one = (notices: string[]) => {
  expect(notices).toHaveLength(1);
  return notices[0];
};

describe('change feed payloads', () => {
  it('round-trips the changed flag names, projects and states, once each, and whether identity changed', () => {
    expect(decodeChanges(one(encodeChanges(['a', 'b', 'a'], ['p', 'p', 'q'], false, ['q', 'q'])))).toEqual({
      flags: ['a', 'b'],
      projects: ['p', 'q'],
      states: ['q'],
      identity: false,
    });
    // without states: the projects' states may have changed too
    expect(decodeChanges(one(encodeChanges(['a', 'b', 'a'], ['p', 'p', 'q'], false)))).toEqual({
      flags: ['a', 'b'],
      projects: ['p', 'q'],
      states: ['p', 'q'],
      identity: false,
    });
    expect(decodeChanges(one(encodeChanges(['a'], [], true)))).toEqual({
      flags: ['a'],
      projects: [],
      states: [],
      identity: true,
    });
  });

  it('any state means any project; any project, any state', () => {
    expect(decodeChanges(one(encodeChanges(['a'], ['p'], false, '*')))).toEqual({
      flags: ['a'],
      projects: ['p'],
      states: '*',
      identity: false,
    });
    expect(decodeChanges(one(encodeChanges(['a'], '*', false, ['p'])))).toEqual({
      flags: ['a'],
      projects: '*',
      states: '*',
      identity: false,
    });
  });

  it('without projects (or "*"), any project may have changed; without identity, it did when a project did', () => {
    expect(decodeChanges(one(encodeChanges(['a'])))).toEqual({
      flags: ['a'],
      projects: '*',
      states: '*',
      identity: true,
    });
    // the payload of an older projector still decodes (without states: those of its projects)
    expect(decodeChanges('{"flags":["a"]}')).toEqual({
      flags: ['a'],
      projects: '*',
      states: '*',
      identity: true,
    });
    expect(decodeChanges('{"flags":["a"],"projects":[1]}')).toEqual({
      flags: ['a'],
      projects: '*',
      states: '*',
      identity: true,
    });
    expect(decodeChanges('{"flags":["a"],"projects":[]}')).toEqual({
      flags: ['a'],
      projects: [],
      states: [],
      identity: false,
    });
    expect(decodeChanges('{"flags":[],"projects":["p"],"identity":false}')).toEqual({
      flags: [],
      projects: ['p'],
      states: ['p'],
      identity: false,
    });
    expect(decodeChanges('{"flags":[],"projects":["p"],"states":[2],"identity":false}')).toEqual({
      flags: [],
      projects: ['p'],
      states: ['p'],
      identity: false,
    });
  });

  it('splits the names of a large batch across notices that each fit, naming each once', () => {
    const flags = Array.from({ length: 600 }, (_, i) => `flag-with-a-long-name-${i}`);
    const projects = Array.from({ length: 300 }, (_, i) => `project-${i}`);
    const notices = encodeChanges([...flags, ...flags], projects, false, projects.slice(100));
    expect(notices.length).toBeGreaterThan(1);
    expect(notices.length).toBeLessThanOrEqual(MAX_NOTICES);
    for (const n of notices) expect(Buffer.byteLength(n)).toBeLessThanOrEqual(7000);
    const decoded = notices.map(decodeChanges);
    expect(decoded.flatMap((d) => d.flags)).toEqual(flags);
    expect(decoded.flatMap((d) => d.projects)).toEqual(projects);
    expect(decoded.flatMap((d) => d.states)).toEqual(projects.slice(100));
    expect(decoded.every((d) => d.identity === false)).toBe(true);
    // "any project" goes with the first notice; the others name flags only
    const any = encodeChanges(flags, '*', true).map(decodeChanges);
    expect(any[0].projects).toBe('*');
    expect(any[0].states).toBe('*');
    expect(any.slice(1).every((d) => Array.isArray(d.projects) && d.projects.length === 0)).toBe(true);
    expect(any.slice(1).every((d) => Array.isArray(d.states) && d.states.length === 0)).toBe(true);
    expect(any.flatMap((d) => d.flags)).toEqual(flags);
  });

  it('falls back to one notice of "everything" past MAX_NOTICES notices', () => {
    const many = Array.from({ length: 20_000 }, (_, i) => `flag-with-a-long-name-${i}`);
    const everything = { flags: '*', projects: '*', states: '*', identity: true };
    expect(encodeChanges(many, ['p'], false).map(decodeChanges)).toEqual([everything]);
    expect(encodeChanges(['a'], many, false).map(decodeChanges)).toEqual([everything]);
    expect(encodeChanges(['a'], ['p'], false, many).map(decodeChanges)).toEqual([everything]);
  });

  it('treats an unreadable payload as "everything changed"', () => {
    const everything = { flags: '*', projects: '*', states: '*', identity: true };
    expect(decodeChanges('not json')).toEqual(everything);
    expect(decodeChanges(undefined)).toEqual(everything);
    expect(decodeChanges('{"flags":[1]}')).toEqual(everything);
  });
});
