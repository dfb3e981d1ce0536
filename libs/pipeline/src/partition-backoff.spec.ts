import { backoffDelayMs, PartitionBackoff, RETRY_DELAY_MS } from './partition-backoff';

describe('PartitionBackoff', () => {
  it('doubles the wait with each failure in a row, up to the largest', () => {
    expect([1, 2, 3, 4].map((a) => backoffDelayMs(a))).toEqual([500, 1000, 2000, 4000]);
    expect(backoffDelayMs(7)).toBe(RETRY_DELAY_MS.max);
    expect(backoffDelayMs(1000)).toBe(RETRY_DELAY_MS.max);
  });

  it('holds a partition until its wait is over; a success starts the count again', async () => {
    const backoff = new PartitionBackoff({ first: 5, max: 40 });
    const first = backoff.wait(1);
    expect([first.attempt, first.delayMs]).toEqual([1, 5]);
    expect(backoff.isWaiting(1)).toBe(true);
    expect(backoff.isWaiting(2)).toBe(false);
    expect(await first.over).toBe(true);
    expect(backoff.isWaiting(1)).toBe(false);
    const second = backoff.wait(1);
    expect([second.attempt, second.delayMs]).toEqual([2, 10]);
    await second.over;
    backoff.succeeded(1);
    expect(backoff.wait(1).attempt).toBe(1);
    backoff.stop();
  });

  it('lets every partition go on a rejoin, and ends every wait on stop without a resume', async () => {
    const backoff = new PartitionBackoff({ first: 60_000, max: 60_000 });
    const a = backoff.wait(0);
    backoff.wait(3);
    backoff.rejoined();
    expect(backoff.isWaiting(0)).toBe(false);
    expect(backoff.isWaiting(3)).toBe(false);
    backoff.stop();
    expect(await a.over).toBe(false);
  });
});
