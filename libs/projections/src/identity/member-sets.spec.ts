import fc from 'fast-check';
import { countMemberSets, type MemberSets } from './member-sets';

/** The reference: the rule with JavaScript sets. */
function reference(projectIds: readonly string[], sets: MemberSets): number[] {
  return projectIds.map((project) => {
    const members = new Set(sets.direct.get(project));
    let empty = 0;
    for (const g of sets.groups.get(project) ?? []) {
      const of = sets.users.get(g);
      if (!of) empty = 1;
      else for (const u of of) members.add(u);
    }
    return members.size + empty;
  });
}

describe('countMemberSets', () => {
  it('counts a project by hand: direct and group members once each, one for a group without users', () => {
    const sets: MemberSets = {
      direct: new Map([
        ['a', ['1', '2']],
        ['b', ['3']],
      ]),
      groups: new Map([
        ['a', ['g1', 'g2']],
        ['c', ['g3']],
      ]),
      users: new Map([['g1', ['2', '4', '5']]]),
    };
    // a: 1, 2, 4, 5 and the empty g2; b: 3; c: the empty g3; d: nobody; a again, as asked
    expect(countMemberSets(['a', 'b', 'c', 'd', 'a'], sets)).toEqual([5, 1, 1, 0, 5]);
    expect(countMemberSets([], sets)).toEqual([]);
  });

  it('equals the count with sets for any memberships, across word boundaries of the bit sets', () => {
    const id = fc.integer({ min: 1, max: 120 }).map(String);
    const ids = fc.uniqueArray(id, { maxLength: 70 });
    const project = fc.constantFrom('p1', 'p2', 'p3', 'p4');
    const group = fc.constantFrom('g1', 'g2', 'g3', 'g4', 'g5');
    fc.assert(
      fc.property(
        fc.dictionary(project, ids),
        fc.dictionary(project, fc.uniqueArray(group, { maxLength: 5 })),
        fc.dictionary(group, fc.uniqueArray(id, { minLength: 1, maxLength: 90 })),
        fc.array(project, { maxLength: 6 }),
        (direct, groups, users, asked) => {
          const sets: MemberSets = {
            direct: new Map(Object.entries(direct)),
            groups: new Map(Object.entries(groups)),
            users: new Map(Object.entries(users)),
          };
          expect(countMemberSets(asked, sets)).toEqual(reference(asked, sets));
        },
      ),
      { numRuns: 300 },
    );
  });
});
