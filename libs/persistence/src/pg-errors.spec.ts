import { isTransientPgError, retryTransient } from './pg-errors';

describe('isTransientPgError', () => {
  it.each([
    [{ code: '40P01' }, true], // deadlock
    [{ code: '40001' }, true], // serialization
    [{ code: '57P01' }, true], // admin shutdown
    [{ code: '08006' }, true], // connection failure
    [{ code: 'ECONNREFUSED' }, true],
    [{ message: 'Connection terminated unexpectedly' }, true],
    [{ driverError: { code: '57P03' } }, true],
    [{ code: '23505' }, false], // unique violation: a bug, not a blip
    [{ code: '42P01' }, false], // undefined table
    [new Error('boom'), false],
    [null, false],
  ])('%j -> %s', (err, expected) => {
    expect(isTransientPgError(err)).toBe(expected);
  });
});

describe('retryTransient', () => {
  it('retries transient failures, then returns', async () => {
    let calls = 0;
    const seen: number[] = [];
    const result = await retryTransient(
      async () => {
        calls++;
        if (calls < 3) throw Object.assign(new Error('x'), { code: '40P01' });
        return 'ok';
      },
      { initialDelayMs: 1, onRetry: (_e, attempt) => void seen.push(attempt) },
    );
    expect(result).toBe('ok');
    expect(seen).toEqual([1, 2]);
  });

  it('rethrows a non-transient failure at once', async () => {
    let calls = 0;
    await expect(
      retryTransient(async () => {
        calls++;
        throw Object.assign(new Error('dup'), { code: '23505' });
      }),
    ).rejects.toThrow('dup');
    expect(calls).toBe(1);
  });
});
