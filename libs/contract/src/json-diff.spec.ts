import fc from 'fast-check';
import { applyPatch, deepClone, validate, type Operation } from 'fast-json-patch';
import { jsonDiff, jsonEqual, type Json } from './json-diff';

/** `patch` applied to `before` by an implementation of RFC 6902 that is not ours. */
const applied = (before: Json, patch: ReturnType<typeof jsonDiff>): Json => {
  const ops = patch as Operation[];
  expect(validate(ops, deepClone(before))).toBeUndefined();
  return applyPatch(deepClone(before), ops, true, false).newDocument as Json;
};

describe('jsonDiff', () => {
  it('equal answers: no operation', () => {
    expect(jsonDiff({ a: [1, { b: 2 }] }, { a: [1, { b: 2 }] })).toEqual([]);
  });

  it('a flag added to a list keyed by name is one add at its place, not a shifted list', () => {
    const before = {
      features: [
        { name: 'a', stale: false },
        { name: 'c', stale: false },
      ],
    };
    const after = {
      features: [
        { name: 'a', stale: false },
        { name: 'b', stale: true },
        { name: 'c', stale: false },
      ],
    };
    expect(jsonDiff(before, after)).toEqual([
      { op: 'add', path: '/features/1', value: { name: 'b', stale: true } },
    ]);
  });

  it('a flag gone is one remove; a changed one is the change inside it; a moved one a move', () => {
    const before = {
      features: [
        { name: 'a', n: 1 },
        { name: 'b', n: 1 },
        { name: 'c', n: 1 },
      ],
    };
    const after = {
      features: [
        { name: 'c', n: 2 },
        { name: 'a', n: 1 },
      ],
    };
    const patch = jsonDiff(before, after);
    expect(patch).toEqual([
      { op: 'remove', path: '/features/1' },
      { op: 'move', from: '/features/1', path: '/features/0' },
      { op: 'replace', path: '/features/0/n', value: 2 },
    ]);
    expect(applied(before, patch)).toEqual(after);
  });

  it('lists keyed by id; lists of plain values by position; keys escaped as JSON Pointers', () => {
    const before = { 'a/b~c': [{ id: 1, v: 'x' }], tags: ['p', 'q', 'r'] };
    const after = {
      'a/b~c': [
        { id: 2, v: 'y' },
        { id: 1, v: 'x' },
      ],
      tags: ['p', 's'],
    };
    const patch = jsonDiff(before, after);
    expect(patch).toEqual([
      { op: 'add', path: '/a~1b~0c/0', value: { id: 2, v: 'y' } },
      { op: 'replace', path: '/tags/1', value: 's' },
      { op: 'remove', path: '/tags/2' },
    ]);
    expect(applied(before, patch)).toEqual(after);
  });

  it('a key named twice on a side: compared by position', () => {
    const before = [
      { name: 'a', v: 1 },
      { name: 'a', v: 2 },
    ];
    const after = [{ name: 'a', v: 2 }];
    expect(applied(before, jsonDiff(before, after))).toEqual(after);
  });

  // answers shaped like the reads': objects, lists of named things (often the same names), plain lists
  const name = fc.constantFrom('a', 'b', 'c', 'd', 'e', 'f/x', 'g~y');
  const leaf: fc.Arbitrary<Json> = fc.oneof(
    fc.integer({ min: -3, max: 3 }),
    fc.boolean(),
    fc.constant(null),
    name,
  );
  const { json } = fc.letrec<{ json: Json; named: Json[] }>((tie) => ({
    json: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      leaf,
      fc.array(tie('json'), { maxLength: 4 }),
      tie('named'),
      fc.dictionary(name, tie('json'), { maxKeys: 4 }),
    ),
    named: fc
      .uniqueArray(name, { maxLength: 6 })
      .chain((names) =>
        fc.tuple(...names.map((n) => fc.record({ name: fc.constant(n), v: tie('json') }))),
      ) as fc.Arbitrary<Json[]>,
  }));

  it('property: the patch applied to before (by another implementation) gives after, and nothing for equal ones', () => {
    fc.assert(
      fc.property(json, json, (before, after) => {
        const patch = jsonDiff(before, after);
        expect(applied(before, patch)).toEqual(after);
        expect(jsonEqual(before, after)).toBe(patch.length === 0);
      }),
      { numRuns: 2000 },
    );
  });

  it('property: two lists of the same named things reordered and changed need no add or remove', () => {
    fc.assert(
      fc.property(fc.uniqueArray(name, { minLength: 1, maxLength: 6 }), fc.integer(), (names, seed) => {
        const before = names.map((n, i) => ({ name: n, v: i }));
        const after = [...before]
          .sort(() => ((seed = (seed * 1103515245 + 12345) | 0) & 1 ? 1 : -1))
          .map((x, i) => (i % 2 ? { ...x, v: -1 } : x));
        const patch = jsonDiff(before, after);
        expect(patch.filter((o) => o.op === 'add' || o.op === 'remove')).toEqual([]);
        expect(applied(before, patch)).toEqual(after);
      }),
    );
  });
});
