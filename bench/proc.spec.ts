import { liveHeapPeak, rssMb, sampleRss } from './proc';

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
    const during = rssMb(process.pid);
    await new Promise((r) => setTimeout(r, 50));
    const peak = stop();
    // The garbage collector may give back other pages meanwhile, so the peak is judged against what this
    // process read while the buffer was held, with a margin for pages freed between two samples.
    expect(peak).toBeGreaterThanOrEqual(Math.round(during) - 8);
    expect(peak).toBeGreaterThanOrEqual(Math.round(before + 32));
    expect(held[0]).toBe(2);
    expect(stop()).toBe(peak); // stopped: no later sample
  });

  it('gives NaN when the process cannot be read', () => {
    expect(sampleRss(2 ** 22 + 1, 10)()).toBeNaN();
  });
});

describe('liveHeapPeak', () => {
  it('keeps the largest heap a mark-compact left, from lines split across chunks', () => {
    const heap = liveHeapPeak();
    expect(heap.peakMb()).toBeNaN();
    heap.feed(
      '{"level":"info","msg":"a log line"}\n[6708:0x1fe20000]     1185 ms: Mark-Compact 122.0 (186.8) -> 94.7 (223.4) MB, pooled: 0 MB, 149.06 / 0.00 ms  (average mu = 0.873) finalize\n[6708:0x1fe20000]  1200 ms: Scavenge 130.1 (190.0) -> 125.3 (191.0) MB, 2.1 / 0.0 ms\n[6708:0x1fe20000]     1646 ms: Mark-Com',
    );
    expect(heap.peakMb()).toBe(94.7);
    heap.feed('pact 151.9 (280.3) -> 129.3 (257.9) MB, pooled: 0 MB, 186.04 / 0.00 ms  testing\n');
    heap.feed(
      '[6708:0x1fe20000]     1900 ms: Mark-Compact (reduce) 140.0 (200.0) -> 101.2 (180.0) MB, 90 ms\n',
    );
    expect(heap.peakMb()).toBe(129.3);
    expect(heap.compactions()).toBe(3);
    expect(heap.lastMb()).toBe(101.2);
  });
});
