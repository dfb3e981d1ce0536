import { rssMb, sampleRss } from './proc';

describe('rssMb and sampleRss', () => {
  it("reads this process's resident set, and NaN for a process that does not exist", () => {
    expect(rssMb(process.pid)).toBeGreaterThan(10);
    expect(rssMb(2 ** 22 + 1)).toBeNaN(); // above Linux's pid_max
    expect(rssMb(undefined)).toBeNaN();
  });

  it('keeps the largest sample taken while it runs', async () => {
    const stop = sampleRss(process.pid, 10);
    const before = rssMb(process.pid);
    // 64 MB touched (allocUnsafe leaves pages unmapped until written), held across a few samples
    const held = Buffer.alloc(64 * 1024 * 1024, 1);
    await new Promise((r) => setTimeout(r, 100));
    held.fill(2);
    const peak = stop();
    expect(peak).toBeGreaterThanOrEqual(Math.round(before + 60));
    expect(stop()).toBe(peak); // stopped: no later sample
  });

  it('gives NaN when the process cannot be read', () => {
    expect(sampleRss(2 ** 22 + 1, 10)()).toBeNaN();
  });
});
