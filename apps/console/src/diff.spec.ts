import { diff, flatten } from './diff';

describe('console diff of preData → data', () => {
  it('flattens to leaf paths', () => {
    expect([...flatten({ a: { b: 1, 'x-y': [true, { c: 'd' }] }, e: {} })]).toEqual([
      ['a.b', '1'],
      ['a."x-y"[0]', 'true'],
      ['a."x-y"[1].c', '"d"'],
      ['e', '{}'],
    ]);
  });

  it('tells added, changed and removed leaves apart', () => {
    const r = diff({ name: 'f', enabled: false, old: 1 }, { name: 'f', enabled: true, strategies: ['x'] });
    expect(r.lines).toEqual([
      { path: 'enabled', kind: 'changed', before: 'false', after: 'true' },
      { path: 'strategies[0]', kind: 'added', after: '"x"' },
      { path: 'old', kind: 'removed', before: '1' },
    ]);
    expect(diff(null, null).lines).toEqual([]);
    expect(diff(null, 'text').lines).toEqual([{ path: '(value)', kind: 'added', after: '"text"' }]);
  });
});
