import { headStarts, longestFirst, shardFiles } from './test-sequencer';

const durations = { 'a.ts': 100, 'b.ts': 60, 'c.ts': 50, 'd.ts': 40, 'e.ts': 10 };
const files = Object.keys(durations);

describe('the test sequencer', () => {
  it('runs the longest files first, a file with no record at the median', () => {
    expect(longestFirst([...files, 'new.ts'], durations)).toEqual([
      'a.ts',
      'b.ts',
      'c.ts',
      'new.ts',
      'd.ts',
      'e.ts',
    ]);
  });

  it('orders ties by path, the same on every machine', () => {
    expect(longestFirst(['z.ts', 'y.ts', 'x.ts'], {})).toEqual(['x.ts', 'y.ts', 'z.ts']);
  });

  it('puts every file in exactly one shard, the shards close in seconds', () => {
    const shards = [1, 2].map((i) => shardFiles(files, durations, i, 2));
    expect(shards.flat().sort()).toEqual(files);
    const seconds = shards.map((s) => s.reduce((sum, f) => sum + durations[f as keyof typeof durations], 0));
    // 260 s in all: 140/120 is the best split there is (a 100 s file and a 40 s one against the rest)
    expect(seconds).toEqual([140, 120]);
  });

  it('gives the same shards whatever order jest lists the files in', () => {
    expect(shardFiles([...files].reverse(), durations, 1, 3)).toEqual(shardFiles(files, durations, 1, 3));
  });

  it("counts each shard's lane's other commands, so the lanes end close together", () => {
    // shard 2's lane also runs 90 s of other commands: the lanes end at 190 and 160 s (without the head start
    // the shards are 140/120 s, the lanes 140/210)
    const start = headStarts('lint; bench,chaos', { lint: 0, bench: 50, chaos: 40 }, 2);
    expect(start).toEqual([0, 90]);
    const shards = [1, 2].map((i) => shardFiles(files, durations, i, 2, start));
    expect(shards).toEqual([
      ['a.ts', 'c.ts', 'd.ts'],
      ['b.ts', 'e.ts'],
    ]);
  });

  it('counts a command with no record, or a shard the spec does not name, as 0', () => {
    expect(headStarts('lint,unknown', { lint: 5 }, 3)).toEqual([5, 0, 0]);
    expect(headStarts(undefined, { lint: 5 }, 2)).toEqual([0, 0]);
    expect(headStarts(';x', { x: -1 }, 2)).toEqual([0, 0]);
  });

  it('refuses a shard outside 1..count', () => {
    expect(() => shardFiles(files, durations, 0, 2)).toThrow('want 1 <= index <= count');
    expect(() => shardFiles(files, durations, 3, 2)).toThrow('want 1 <= index <= count');
  });
});
