import {
  ANYTHING,
  decodeChanges,
  dropsOf,
  encodeChanges,
  EVENT_LOG_WRITES,
  EVERYTHING_CHANGED,
  MAX_NOTICES,
  READS_ANYTHING,
  type Changes,
  type Reads,
  type Written,
} from './change-feed';
import { EVERY } from './projection';
import { allProjections } from './registry';
import * as projections from './index';

/** Writes as the projections record them: per table, flags and projects ('*': every key). */
const writes = (w: Record<string, { flags?: string[]; projects?: string[] | '*' }>): Written[] =>
  Object.entries(w).map(([table, x]) => ({
    tables: [table],
    flags: new Set(x.flags ?? []),
    projects: x.projects === '*' ? EVERY : new Set(x.projects ?? []),
  }));

const one = (notices: string[]): Changes => {
  expect(notices).toHaveLength(1);
  return decodeChanges(notices[0]);
};

/** Every key a list of notices names for a table, by key space. */
const named = (notices: Changes[], table: string, by: 'flags' | 'projects'): string[] =>
  notices.flatMap((c) => c.written.filter((w) => w.tables.includes(table)).flatMap((w) => w[by]));

describe('change feed: what a batch wrote, as notices', () => {
  it('names each key once, with the tables written at it', () => {
    const c = one(
      encodeChanges(
        writes({
          event_log: { flags: ['a', 'b'], projects: ['p'] },
          flag_state: { flags: ['a'], projects: ['p'] },
          environments: { projects: '*' },
        }),
      ),
    );
    expect(c.everything).toBe(false);
    expect(c.every).toEqual(['environments']);
    expect(c.written).toEqual(
      expect.arrayContaining([
        { tables: ['event_log', 'flag_state'], flags: ['a'], projects: ['p'] },
        { tables: ['event_log'], flags: ['b'], projects: [] },
      ]),
    );
    expect(c.written).toHaveLength(2);
  });

  it('splits the names of a large batch across notices that each fit, naming each once', () => {
    const flags = Array.from({ length: 600 }, (_, i) => `flag-with-a-long-name-${i}`);
    const projects = Array.from({ length: 300 }, (_, i) => `project-${i}`);
    const notices = encodeChanges(
      writes({
        event_log: { flags: [...flags, ...flags], projects },
        'projects.settings': { projects: projects.slice(100) },
        feature_types: { projects: '*' },
      }),
    );
    expect(notices.length).toBeGreaterThan(1);
    expect(notices.length).toBeLessThanOrEqual(MAX_NOTICES);
    for (const n of notices) expect(Buffer.byteLength(n)).toBeLessThanOrEqual(7000);
    const decoded = notices.map(decodeChanges);
    expect(named(decoded, 'event_log', 'flags')).toEqual(flags);
    expect(named(decoded, 'event_log', 'projects').sort()).toEqual([...projects].sort());
    expect(named(decoded, 'projects.settings', 'projects')).toEqual(projects.slice(100));
    // the tables written at every key go with the first notice
    expect(decoded.map((d) => d.every)).toEqual([['feature_types'], ...decoded.slice(1).map(() => [])]);
  });

  it('falls back to one notice of "everything" past MAX_NOTICES notices', () => {
    const many = Array.from({ length: 20_000 }, (_, i) => `flag-with-a-long-name-${i}`);
    expect(encodeChanges(writes({ event_log: { flags: many } }))).toEqual([EVERYTHING_CHANGED]);
    expect(encodeChanges(writes({ projects: { projects: many } }))).toEqual([EVERYTHING_CHANGED]);
    expect(decodeChanges(EVERYTHING_CHANGED)).toEqual(ANYTHING);
    // more writes than a key's bitmask holds
    const tables = Object.fromEntries(Array.from({ length: 31 }, (_, i) => [`t${i}`, { flags: ['a'] }]));
    expect(encodeChanges(writes(tables))).toEqual([EVERYTHING_CHANGED]);
    expect(one(encodeChanges(writes(Object.fromEntries(Object.entries(tables).slice(1))))).written).toEqual([
      { tables: Object.keys(tables).slice(1), flags: ['a'], projects: [] },
    ]);
  });

  it('reads an unreadable payload, or an older projector`s, as "everything changed"', () => {
    expect(decodeChanges('not json')).toEqual(ANYTHING);
    expect(decodeChanges(undefined)).toEqual(ANYTHING);
    expect(decodeChanges('{"flags":["a"],"projects":["p"],"identity":false}')).toEqual(ANYTHING);
    expect(decodeChanges('{"v":2,"e":[],"w":[[["t"],[1],[]]]}')).toEqual(ANYTHING);
    expect(decodeChanges('{"v":2,"e":[],"w":[[["t"],[]]]}')).toEqual(ANYTHING);
  });
});

describe('change feed: what a reader drops, from what it reads and what a batch wrote', () => {
  const drops = (reads: Reads, w: Parameters<typeof writes>[0]) =>
    encodeChanges(writes(w)).map(decodeChanges).map(dropsOf(reads));
  const byProject: Reads = { tables: ['flag_state', 'projects.settings'], by: 'projects' };

  it('by key: the keys at which a table it reads was written', () => {
    expect(
      drops(byProject, {
        flag_state: { flags: ['f'], projects: ['p', 'q'] },
        'projects.settings': { projects: ['r'] },
        event_log: { flags: ['f'], projects: ['s'] },
      })[0],
    ).toEqual(expect.arrayContaining(['p', 'q', 'r']));
    expect(drops(byProject, { flag_state: { flags: ['f'], projects: ['p'] } })).toEqual([['p']]);
    expect(
      drops({ tables: ['event_log'], by: 'flags' }, { event_log: { flags: ['f'], projects: ['p'] } }),
    ).toEqual([['f']]);
  });

  it('nothing when no table it reads was written; a part is not its table', () => {
    expect(drops(byProject, { event_log: { flags: ['f'], projects: ['p'] } })).toEqual(['none']);
    // the table less the part (a project's latest event time) is not its settings
    expect(drops(byProject, { projects: { projects: ['p'] } })).toEqual(['none']);
    expect(drops(byProject, {})).toEqual(['none']);
  });

  it('all: a table it reads written at every key, or any write of one for a reader by no key', () => {
    expect(
      drops(byProject, { flag_state: { projects: '*' }, 'projects.settings': { projects: ['p'] } }),
    ).toEqual(['all']);
    expect(drops(byProject, { feature_types: { projects: '*' } })).toEqual(['none']);
    expect(drops(byProject, { 'projects.settings': { projects: '*' } })).toEqual(['all']);
    const byNoKey: Reads = { tables: ['identity_users'] };
    expect(drops(byNoKey, { identity_users: { projects: ['p'] } })).toEqual(['all']);
    expect(drops(byNoKey, { identity_roles: { projects: '*' } })).toEqual(['none']);
  });

  it('all on "everything", and on every notice for a reader that declared no tables', () => {
    expect(dropsOf(byProject)(ANYTHING)).toBe('all');
    expect(drops(READS_ANYTHING, {})).toEqual(['all']);
  });

  it('the readers read only tables that something writes (a misspelt table would never drop)', () => {
    const written = new Set<string>([...EVENT_LOG_WRITES, 'personal_access_tokens']);
    for (const p of allProjections())
      for (const t of p.writes) {
        written.add(t);
        for (const part of Object.keys(p.parts ?? {})) written.add(`${t}.${part}`);
      }
    // every declaration the package exports (`*_READS`: one, or a list of them), however many there are
    const declared = Object.entries(projections)
      .filter(([name]) => name.endsWith('_READS'))
      .flatMap(([name, value]) => (Array.isArray(value) ? value : [value]).map((r) => [name, r]));
    expect(declared.length).toBeGreaterThanOrEqual(4);
    for (const [name, reads] of declared as [string, Reads][])
      if (reads.tables !== EVERY)
        for (const t of reads.tables)
          expect({ name, t, written: written.has(t) }).toEqual({ name, t, written: true });
  });
});
