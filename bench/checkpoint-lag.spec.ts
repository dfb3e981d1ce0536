import { asOfLag, type LagSample } from './checkpoint-lag';

/** Samples a second apart from [applied, covered] pairs. */
const at = (...pairs: [number, number][]): LagSample[] =>
  pairs.map(([applied, covered], i) => ({ atMs: i * 1000, applied, covered }));

describe('how far the as-of checkpoints trail the projector', () => {
  it('is the longest wait of an applied count for a checkpoint covering it but one checkpoint', () => {
    // 2000 applied at 1 s is covered (≥ 1500) at 3 s; 3000 at 2 s at 4 s
    expect(asOfLag(at([0, 0], [2000, 0], [3000, 1000], [3000, 1500], [3000, 2500]), 500)).toEqual({
      maxLagSeconds: 2,
      caughtUp: true,
    });
  });

  it('counts nothing while fewer events than one checkpoint are applied', () => {
    expect(asOfLag(at([100, 0], [500, 0], [500, 0]), 500)).toEqual({ maxLagSeconds: 0, caughtUp: true });
    expect(asOfLag([], 500)).toEqual({ maxLagSeconds: 0, caughtUp: true });
  });

  it('never covered: the time from the first such sample to the last, and not caught up', () => {
    expect(asOfLag(at([1000, 0], [5000, 600], [5000, 2000], [5000, 4000]), 500)).toEqual({
      maxLagSeconds: 2,
      caughtUp: false,
    });
  });

  it('a checkpoint dropped meanwhile (the covered count falls) does not hide a later one', () => {
    expect(asOfLag(at([2000, 0], [2000, 1600], [2000, 800], [2000, 1800]), 500)).toEqual({
      maxLagSeconds: 1,
      caughtUp: true,
    });
  });
});
