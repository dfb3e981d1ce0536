import { READS_ANYTHING } from './change-feed';
import { IDENTITY_READS } from './identity/identity.read-model';
import { LIFECYCLE_READS } from './lifecycle/lifecycle.read-model';
import { OVERVIEW_AS_OF_READS } from './overview/overview.read-model';
import type { Projection } from './projection';
import { allProjections, projectionsFor, tablesLeftOut } from './registry';

const names = (ps: readonly Projection[]) => ps.map((p) => p.name);

/** A projection that only declares: what it writes and what else it reads. */
const declared = (name: string, writes: string[], reads?: string[]): Projection => ({
  name,
  writes,
  reads,
  scope: 'instance',
  handles: () => true,
  apply: () => Promise.resolve(),
});

describe('the projections a read needs (projectionsFor)', () => {
  it("the overview's declaration replays neither the insights nor the lifecycle", () => {
    const all = names(allProjections());
    const overview = names(projectionsFor(OVERVIEW_AS_OF_READS));
    expect(all.filter((n) => !overview.includes(n))).toEqual(['lifecycle', 'insights']);
  });

  it("the profile's replays identity alone; the lifecycle summary's what it reads", () => {
    expect(names(projectionsFor([IDENTITY_READS]))).toEqual(['identity']);
    expect(names(projectionsFor([LIFECYCLE_READS]))).toEqual(['environments', 'flag-state', 'lifecycle']);
  });

  it("insights' tables need flag-state too: insights books its changes from flag-state's transitions", () => {
    expect(names(projectionsFor([{ tables: ['insights_metrics'] }]))).toEqual(['flag-state', 'insights']);
  });

  it('every projection for "*", in the registry\'s order', () => {
    expect(names(projectionsFor([READS_ANYTHING]))).toEqual(names(allProjections()));
  });

  it('those that write what the chosen ones read while applying, and so on, in the given order', () => {
    const ps = [
      declared('c', ['c1']),
      declared('a', ['a1', 'a2'], ['b1']),
      declared('d', ['d1'], ['a1']),
      declared('b', ['b1'], ['c1', 'log']),
    ];
    expect(names(projectionsFor([{ tables: ['a2'] }], ps))).toEqual(['c', 'a', 'b']);
    expect(names(projectionsFor([{ tables: ['c1'] }], ps))).toEqual(['c']);
    // a table's part names its table; a table nothing writes needs nothing
    expect(names(projectionsFor([{ tables: ['b1.part'] }, { tables: ['log'] }], ps))).toEqual(['c', 'b']);
    expect(projectionsFor([], ps)).toEqual([]);
  });

  it('leaves out the tables only the projections left out write', () => {
    const ps = [declared('a', ['a1', 'shared']), declared('b', ['b1', 'shared']), declared('c', ['c1'])];
    expect([...tablesLeftOut([ps[0]], ps)].sort()).toEqual(['b1', 'c1']);
    expect([...tablesLeftOut(ps, ps)]).toEqual([]);
  });
});
