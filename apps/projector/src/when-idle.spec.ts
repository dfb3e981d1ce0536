import { WhenIdle } from './when-idle';

describe('WhenIdle: a background job of the projector, off the batches’ path', () => {
  beforeEach(() => jest.useFakeTimers({ now: 1_000_000 }));
  afterEach(() => jest.useRealTimers());

  const timing = { everyMs: 1_000, idleMs: 500, atLeastMs: 10_000 };

  /** A job that records each run (with whether batches flowed) and finishes when told to. */
  function recorder() {
    const runs: boolean[] = [];
    const pending: (() => void)[] = [];
    const job = (busy: boolean) => {
      runs.push(busy);
      return new Promise<void>((resolve) => pending.push(resolve));
    };
    const finish = async () => {
      pending.splice(0).forEach((r) => r());
      await Promise.resolve();
      await Promise.resolve();
    };
    return { runs, job, finish };
  }

  it('runs at each look while the projector is idle, one run at a time', async () => {
    const { runs, job, finish } = recorder();
    const w = new WhenIdle(() => 0, timing, job);
    w.start();
    jest.advanceTimersByTime(999);
    expect(runs).toEqual([]);
    jest.advanceTimersByTime(1);
    expect(runs).toEqual([false]);
    // still running: the next looks do nothing
    jest.advanceTimersByTime(3_000);
    expect(runs).toEqual([false]);
    await finish();
    jest.advanceTimersByTime(1_000);
    expect(runs).toEqual([false, false]);
    await finish();
    await w.stop();
  });

  it('looks first after `firstMs` when given', async () => {
    const { runs, job, finish } = recorder();
    const w = new WhenIdle(() => 0, { ...timing, firstMs: 100 }, job);
    w.start();
    jest.advanceTimersByTime(100);
    expect(runs).toEqual([false]);
    await finish();
    await w.stop();
  });

  it('while batches flow, runs only when its last run started `atLeastMs` ago, and says it is busy', async () => {
    const { runs, job, finish } = recorder();
    let lastBatchAt = 0;
    const w = new WhenIdle(() => lastBatchAt, timing, job);
    w.start();
    jest.advanceTimersByTime(1_000); // idle: runs
    await finish();
    // a batch 100 ms before each look
    const busyLook = () => {
      jest.advanceTimersByTime(900);
      lastBatchAt = Date.now();
      jest.advanceTimersByTime(100);
    };
    for (let i = 0; i < 9; i++) {
      busyLook();
      await finish();
    }
    expect(runs).toEqual([false]);
    busyLook(); // 10 s after the first run started
    expect(runs).toEqual([false, true]);
    await finish();
    await w.stop();
  });

  it('stop: no look after it, and it waits for the run in flight', async () => {
    const { runs, job, finish } = recorder();
    const w = new WhenIdle(() => 0, timing, job);
    w.start();
    jest.advanceTimersByTime(1_000);
    let stopped = false;
    const stopping = w.stop().then(() => (stopped = true));
    expect(w.stopping).toBe(true);
    await Promise.resolve();
    expect(stopped).toBe(false);
    await finish();
    await stopping;
    expect(stopped).toBe(true);
    jest.advanceTimersByTime(5_000);
    expect(runs).toEqual([false]);
  });
});
