import { backendCpuSeconds, CpuShares, isLocalPostgres } from './stage-cost';

/** Burns `ms` of this process's CPU (not wall time: the machine may be shared). */
const burn = (ms: number) => {
  const u0 = process.cpuUsage();
  let x = 0;
  for (;;) {
    const u = process.cpuUsage(u0);
    if (u.user + u.system >= ms * 1000) return x;
    x++;
  }
};

describe('stage CPU shares', () => {
  it('splits the CPU of overlapping stages evenly, never counting it twice', () => {
    const shares = new CpuShares();
    const u0 = process.cpuUsage();
    const a = shares.start();
    burn(30); // a alone
    const b = shares.start();
    burn(30); // a and b
    const aSeconds = shares.stop(a);
    burn(30); // b alone
    const bSeconds = shares.stop(b);
    const u = process.cpuUsage(u0);
    const spent = (u.user + u.system) / 1e6;
    // the two shares add up to what the process spent while either was open (the test's own work aside)
    expect(aSeconds + bSeconds).toBeLessThanOrEqual(spent + 1e-6);
    expect(aSeconds + bSeconds).toBeGreaterThan(0.07);
    // each about 30 ms alone plus half of the 30 ms together: equal, within scheduling noise
    expect(Math.abs(aSeconds - bSeconds)).toBeLessThan(0.02);
  });

  it('reads no CPU of a pid that is not a local postgres process', () => {
    expect(isLocalPostgres(process.pid)).toBe(false);
    expect(backendCpuSeconds(2 ** 30)).toBeUndefined();
    expect(backendCpuSeconds(process.pid)).toBeGreaterThan(0);
  });
});
