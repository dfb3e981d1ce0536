import { originOf } from './db-connector';
import { isRetryableSourceError, oneLine, SourceError } from './errors';

describe('source errors', () => {
  it('one line, no stack, the code when the message lacks it', () => {
    const e = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5999\n    at TCPConnectWrap'), {
      code: 'ECONNREFUSED',
    });
    expect(oneLine(e)).toBe('connect ECONNREFUSED 127.0.0.1:5999');
    expect(oneLine(Object.assign(new Error('password authentication failed'), { code: '28P01' }))).toBe(
      'password authentication failed (28P01)',
    );
    // Node's AggregateError (every address refused) has an empty message: the first cause speaks
    const agg = Object.assign(new AggregateError([new Error('connect ECONNREFUSED ::1:5432')], ''), {
      code: 'ECONNREFUSED',
    });
    expect(oneLine(agg)).toContain('connect ECONNREFUSED ::1:5432');
  });

  it('connection trouble is retried; what retrying cannot fix is not', () => {
    expect(isRetryableSourceError(Object.assign(new Error('x'), { code: 'ECONNREFUSED' }))).toBe(true);
    expect(isRetryableSourceError(Object.assign(new Error('x'), { code: '57P01' }))).toBe(true);
    expect(isRetryableSourceError(Object.assign(new Error('x'), { code: '28P01' }))).toBe(true);
    expect(isRetryableSourceError(new SourceError('not-unleash', 'no events table'))).toBe(false);
    expect(new SourceError('refused-token', 'x').exitCode).toBe(2);
  });

  it('the origin of a position names host, port and database, never credentials', () => {
    expect(originOf('postgres://ro:s3cret@unleash-db:6432/unleash?sslmode=require')).toBe(
      'postgres://unleash-db:6432/unleash',
    );
    expect(originOf('postgresql://u@h/db')).toBe('postgres://h/db');
  });
});
