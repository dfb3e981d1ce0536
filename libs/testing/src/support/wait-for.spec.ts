import { waitFor } from './wait-for';

describe('waitFor', () => {
  it('returns the first truthy value the probe gives', async () => {
    let n = 0;
    await expect(waitFor('three', async () => (++n >= 3 ? n : 0), { intervalMs: 1 })).resolves.toBe(3);
  });

  it('fails at once with the reason when the wait is hopeless, without waiting out the timeout', async () => {
    const started = Date.now();
    await expect(
      waitFor('api up', async () => false, {
        timeoutMs: 60000,
        intervalMs: 1,
        hopeless: () => 'the api exited (1)',
      }),
    ).rejects.toThrow('gave up waiting for api up: the api exited (1)');
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it('names the last value and error when the timeout passes', async () => {
    await expect(
      waitFor(
        'never',
        async () => {
          throw new Error('refused');
        },
        { timeoutMs: 20, intervalMs: 5 },
      ),
    ).rejects.toThrow(/timed out waiting for never; last value undefined, last error Error: refused/);
  });
});
