import { classifyFailure, describeFailure, isTransientPgError, retryTransient } from './pg-errors';

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

describe('classifyFailure', () => {
  it.each([
    [{ code: '40001' }, 'transient'], // serialization failure
    [{ code: '40P01' }, 'transient'], // deadlock
    [{ code: '55P03' }, 'transient'], // lock timeout
    [{ code: '57014' }, 'transient'], // statement timeout
    [{ code: '57P01' }, 'transient'], // admin shutdown
    [{ code: '08006' }, 'transient'], // connection failure
    [{ code: '53300' }, 'transient'], // too many connections
    [{ code: 'ECONNRESET' }, 'transient'],
    [{ message: 'Client was closed and is not queryable' }, 'transient'],
    [{ code: '42P01' }, 'systemic'], // undefined table: the schema is wrong, not the event
    [{ code: '42501' }, 'systemic'], // insufficient privilege
    [{ code: '3F000' }, 'systemic'], // invalid schema name
    [{ code: 'XX000' }, 'systemic'], // internal error
    [{ code: '3B001' }, 'systemic'], // a savepoint that does not exist: our transaction handling, not the event
    [{ driverError: { code: '42P01' } }, 'systemic'],
    [{ code: '54000' }, 'data'], // index row size exceeds the maximum: the event's value
    [{ code: '22P02' }, 'data'], // invalid text representation
    [{ code: '23505' }, 'data'], // unique violation
    [new RangeError('Maximum call stack size exceeded'), 'data'], // projection code
    [new TypeError("Cannot read properties of undefined (reading 'x')"), 'data'],
    [new Error('boom'), 'data'],
    ['a string', 'data'],
  ])('%j -> %s', (err, expected) => {
    expect(classifyFailure(err)).toBe(expected);
  });

  it('describes database and code failures for a dead letter', () => {
    expect(
      describeFailure(Object.assign(new Error('index row size 4016 exceeds maximum'), { code: '54000' })),
    ).toBe('database refused the event (SQLSTATE 54000): index row size 4016 exceeds maximum');
    expect(describeFailure(new RangeError('Maximum call stack size exceeded'))).toBe(
      'RangeError in projection code: Maximum call stack size exceeded',
    );
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
