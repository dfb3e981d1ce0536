import { spawn } from 'node:child_process';
import { backendCpuSeconds, CpuShares, isLocalPostgres, openSchedstats } from './stage-cost';

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
    let micros = 1_000; // the process's CPU clock, moved by hand
    const shares = new CpuShares(() => micros);
    micros += 500; // before any stage: nobody's
    const a = shares.start();
    micros += 30_000; // a alone
    const b = shares.start();
    micros += 30_000; // a and b: half each
    const aSeconds = shares.stop(a);
    micros += 30_000; // b alone
    const bSeconds = shares.stop(b);
    micros += 700; // after: nobody's
    expect(aSeconds).toBeCloseTo(0.045, 9);
    expect(bSeconds).toBeCloseTo(0.045, 9);
    // a stage that saw no CPU, and one stopped twice, count nothing
    const c = shares.start();
    expect(shares.stop(c)).toBe(0);
    expect(shares.stop(c)).toBe(0);
  });

  it('measures this process by default: the shares add up to at most what it spent', () => {
    const shares = new CpuShares();
    const u0 = process.cpuUsage();
    const a = shares.start();
    burn(20);
    const aSeconds = shares.stop(a);
    const u = process.cpuUsage(u0);
    expect(aSeconds).toBeGreaterThanOrEqual(0.02);
    expect(aSeconds).toBeLessThanOrEqual((u.user + u.system) / 1e6 + 1e-6);
  });

  it('reads no CPU of a pid that is not a local postgres process', () => {
    expect(isLocalPostgres(process.pid)).toBe(false);
    expect(backendCpuSeconds(2 ** 30)).toBeUndefined();
    expect(backendCpuSeconds(process.pid)).toBeGreaterThan(0);
  });

  it("reads a process's CPU again from the open file, and lets go of it when the process ends", async () => {
    // schedstat counts one thread (the main one, which runs this loop), process.cpuUsage every thread (GC,
    // libuv): on a loaded machine 30 ms of the process's CPU held 16 ms of the main thread's. So the loop runs
    // until the re-read value has moved 20 ms, for at most 5 s of wall time: a stale read never gets there.
    const before = backendCpuSeconds(process.pid)!;
    const deadline = Date.now() + 5000;
    let moved = 0;
    while (moved < 0.02 && Date.now() < deadline) {
      burn(5);
      moved = backendCpuSeconds(process.pid)! - before;
    }
    expect(moved).toBeGreaterThanOrEqual(0.02);

    const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)'], { stdio: 'ignore' });
    const exited = new Promise((resolve) => child.once('exit', resolve));
    const open = openSchedstats();
    expect(backendCpuSeconds(child.pid!)).toBeGreaterThanOrEqual(0);
    expect(openSchedstats()).toBe(open + 1);
    child.kill('SIGKILL');
    await exited;
    await new Promise((r) => setTimeout(r, 50)); // reaped
    expect(backendCpuSeconds(child.pid!)).toBeUndefined();
    expect(openSchedstats()).toBe(open);
  });
});
