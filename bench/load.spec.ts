import { parseWrk, wrkMs } from './load';

describe("wrk's output", () => {
  it('reads requests/s, p50, p99 and failures', () => {
    const out = `Running 2s test @ http://127.0.0.1:1/x
  2 threads and 50 connections
  Thread Stats   Avg      Stdev     Max   +/- Stdev
    Latency     1.10ms  300.00us   9.00ms   90.00%
  Latency Distribution
     50%  850.00us
     75%    1.20ms
     90%    1.50ms
     99%    2.50ms
  20000 requests in 2.00s, 5.00MB read
  Socket errors: connect 0, read 1, write 0, timeout 2
  Non-2xx or 3xx responses: 4
Requests/sec:  10000.50
Transfer/sec:      2.50MB
`;
    expect(parseWrk(out)).toEqual({ reqPerSec: 10001, p50Ms: 0.85, p99Ms: 2.5, non2xx: 7 });
    expect(wrkMs('2.00s')).toBe(2000);
  });
});
