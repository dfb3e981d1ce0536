import { besideShards, commandSeconds, secondsFromResults } from './test-durations';

describe('test durations from jest results', () => {
  it('takes each file path relative to the root, in tenths of a second', () => {
    const results = [
      { testResults: [{ name: '/repo/test/a.e2e-spec.ts', startTime: 1_000, endTime: 62_449 }] },
      { testResults: [{ name: '/repo/libs/b.int-spec.ts', startTime: 0, endTime: 950 }] },
    ];
    expect(secondsFromResults('/repo', results)).toEqual({
      'test/a.e2e-spec.ts': 61.4,
      'libs/b.int-spec.ts': 1,
    });
  });

  it('skips a file of another checkout', () => {
    const results = [
      { testResults: [{ name: '/elsewhere/test/a.e2e-spec.ts', startTime: 0, endTime: 1000 }] },
    ];
    expect(secondsFromResults('/repo', results)).toEqual({});
  });

  it('skips a result with no usable times', () => {
    expect(
      secondsFromResults('/repo', [{ testResults: [{ name: '/repo/x.ts', startTime: 5, endTime: 1 }] }, {}]),
    ).toEqual({});
  });
});

describe("the seconds of the lanes' other commands", () => {
  const lane = [
    '[lanes 16:30:01] a: npm run -s lint',
    '[lanes 16:30:50] a: npm run -s lint passed after 49 s',
    '[lanes 16:31:37] a: bash scripts/node-runtime.sh exec jest --selectProjects int e2e --shard=1/2 --json passed after 600 s',
    '[lanes 16:41:37] a: npm run -s conformance -- --unleash 6.10.1 --unleash 8.2.0 passed after 106 s',
  ].join('\n');
  const other = [
    '[lanes 16:30:01] b: bash scripts/node-runtime.sh exec jest --selectProjects int e2e --shard=2/2 passed after 400 s',
    '[lanes 16:40:01] b: flock /x/.run/cpu-heavy.lock npm run -s test:chaos passed after 89 s',
    '[lanes 16:41:31] b: flock /x/.run/cpu-heavy.lock npm run -s bench -- --quick FAILED (exit 1) after 3 s',
  ].join('\n');

  it('takes each passed npm script by its name and each shard by its number', () => {
    expect(commandSeconds([lane, other])).toEqual({
      lint: 49,
      'shard 1': 600,
      conformance: 106,
      'shard 2': 400,
      'test:chaos': 89,
    });
  });

  it("scales them by the files' seconds over the shards' own, and leaves the shards out", () => {
    // the shards took 1,000 s for 800 s of files
    expect(besideShards(commandSeconds([lane, other]), 800)).toEqual({
      conformance: 84.8,
      lint: 39.2,
      'test:chaos': 71.2,
    });
    expect(besideShards({ lint: 49 }, 800)).toEqual({ lint: 49 });
  });
});
