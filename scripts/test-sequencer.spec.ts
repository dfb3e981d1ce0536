import { longestFirst, shardFiles } from './test-sequencer';

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

  it('refuses a shard outside 1..count', () => {
    expect(() => shardFiles(files, durations, 0, 2)).toThrow('want 1 <= index <= count');
    expect(() => shardFiles(files, durations, 3, 2)).toThrow('want 1 <= index <= count');
  });
});
