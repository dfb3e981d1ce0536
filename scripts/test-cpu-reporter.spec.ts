import { busySeconds, summary } from './test-cpu-reporter';

describe('the test CPU reporter', () => {
  it('counts every column of /proc/stat but idle and iowait, in seconds', () => {
    const stat = 'cpu  100 20 300 4000 50 6 7 8 0 0\ncpu0 50 10 150 2000 25 3 3 4 0 0\nintr 1 2 3\n';
    expect(busySeconds(stat)).toBeCloseTo((100 + 20 + 300 + 6 + 7 + 8) / 100);
    // guest time is part of user time already: not counted twice
    expect(busySeconds('cpu  100 20 300 4000 50 6 7 8 90 10\n')).toBeCloseTo(
      (100 + 20 + 300 + 6 + 7 + 8) / 100,
    );
  });

  it('refuses a /proc/stat it cannot read', () => {
    expect(() => busySeconds('intr 1 2 3\n')).toThrow('no "cpu " line');
    expect(() => busySeconds('cpu  1 x 3 4\n')).toThrow('unreadable');
  });

  it('lists the files costliest first, with their sums', () => {
    expect(
      summary([
        { file: 'a.int-spec.ts', wallSeconds: 10, cpuSeconds: 5.04 },
        { file: 'b.e2e-spec.ts', wallSeconds: 4, cpuSeconds: 7.96 },
      ]),
    ).toEqual({
      files: [
        { file: 'b.e2e-spec.ts', wallSeconds: 4, cpuSeconds: 8 },
        { file: 'a.int-spec.ts', wallSeconds: 10, cpuSeconds: 5 },
      ],
      wallSeconds: 14,
      cpuSeconds: 13,
    });
  });
});
