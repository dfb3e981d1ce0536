import { summariseGcTrace } from './gc-trace';

const TRACE = [
  '[7325:0x1ce365a0]    17385 ms: Mark-Compact 55.9 (82.3) -> 40.9 (84.3) MB, 16.85 / 0.49 ms  (+ 2.9 ms in 33 steps since start of marking, biggest step 0.3 ms, walltime since start of marking 82 ms) (average mu = 0.983, current mu = 0.983) finalize incremental marking via task; GC in old space requested',
  '[7325:0x1ce365a0]    38831 ms: Scavenge 56.2 (86.3) -> 42.8 (86.3) MB, 1.99 / 0.33 ms  (average mu = 0.980, current mu = 0.983) task; ',
  'some other line the app printed',
  '[7325:0x1ce365a0]    38955 ms: Scavenge 56.3 (86.3) -> 43.0 (86.3) MB, 3.01 / 0.33 ms  (average mu = 0.980, current mu = 0.983) allocation failure; ',
  '[7325:0x1ce365a0]    40100 ms: Mark-Compact (reduce) 40.1 (50.0) -> 20.0 (30.0) MB, 5.00 / 0.00 ms  (average mu = 0.990, current mu = 0.990) memory reducer; GC in old space requested',
  '[7325:0x1ce365a0]    41000 ms: Mark-Compact 60.0 (90.0) -> 41.0 (90.0) MB, 7.15 / 0.10 ms  (+ 10.1 ms in 20 steps since start of marking, biggest step 3.0 ms, walltime since start of marking 60 ms) (average mu = 0.98, current mu = 0.98) finalize incremental marking via stack guard; GC in old space requested',
].join('\n');

describe('summariseGcTrace', () => {
  it('sums the pauses and the incremental marking of each kind, and skips lines that are not collections', () => {
    expect(summariseGcTrace(TRACE)).toEqual({
      'Mark-Compact': { count: 2, pauseMs: 24, maxPauseMs: 16.85, incrementalMs: 13 },
      'Mark-Compact (reduce)': { count: 1, pauseMs: 5, maxPauseMs: 5, incrementalMs: 0 },
      Scavenge: { count: 2, pauseMs: 5, maxPauseMs: 3.01, incrementalMs: 0 },
    });
  });

  it('finds nothing in a trace without collections', () => {
    expect(summariseGcTrace('')).toEqual({});
  });
});
