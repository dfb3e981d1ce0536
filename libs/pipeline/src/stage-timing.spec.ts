import type { StageCost } from './stage-cost';
import { StageTimer } from './stage-timing';

/** Burns `ms` of this process's CPU. */
const burn = (ms: number) => {
  const u0 = process.cpuUsage();
  for (;;) {
    const u = process.cpuUsage(u0);
    if (u.user + u.system >= ms * 1000) return;
  }
};

describe('StageTimer', () => {
  it('gives the functions back as they are when nobody listens: nothing added to the path', () => {
    const timer = new StageTimer();
    const fns = { begin: async () => 1, commit: async () => 2 };
    expect(timer.stages(fns)).toBe(fns);
    const decode = (x: number) => x + 1;
    expect(timer.sync('classify', decode)).toBe(decode);
  });

  it('reports each call of a wrapped function under its stage, with its wall time and CPU, even when it throws', () => {
    const seen: [string, StageCost][] = [];
    const timer = new StageTimer((stage, seconds, cost) => {
      expect(cost.seconds).toBe(seconds);
      seen.push([stage, cost]);
    });
    const classify = timer.sync('classify', (ms: number) => {
      burn(ms);
      if (ms > 10) throw new Error('too long');
      return ms * 2;
    });
    expect(classify(5)).toBe(10);
    expect(() => classify(15)).toThrow('too long');
    expect(seen.map(([stage]) => stage)).toEqual(['classify', 'classify']);
    expect(seen[0][1].cpuSeconds).toBeGreaterThanOrEqual(0.004);
    expect(seen[1][1].cpuSeconds).toBeGreaterThanOrEqual(0.014);
    // no client, no backend
    expect(seen[0][1].dbCpuSeconds).toBeUndefined();
    // the time is the wall's: a call that waits 20 ms without using the CPU takes 20 ms (its CPU is the
    // process's, every thread's, so it is not compared with it)
    const wait = timer.sync('wait', (ms: number) =>
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms),
    );
    expect(wait(20)).toBe('timed-out');
    expect(seen[2][0]).toBe('wait');
    expect(seen[2][1].seconds).toBeGreaterThanOrEqual(0.019);
  });
});
