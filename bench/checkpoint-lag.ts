/* How far the projector's as-of checkpoints trail what it has applied (bench/scale.ts). */

/** A look at one moment: the events the projector has applied, and those its newest as-of checkpoint covers. */
export interface LagSample {
  atMs: number;
  applied: number;
  covered: number;
}

/**
 * The longest an applied event waited for a checkpoint to cover it, give or take one checkpoint's events: for
 * each sample that saw N applied, the time to the first sample (that one or later) whose newest checkpoint
 * covers at least N − `every` events. When one is never covered, neither are those after it (N only grows):
 * the time from it to the last sample counts, and `caughtUp` is false.
 */
export function asOfLag(
  samples: readonly LagSample[],
  every: number,
): { maxLagSeconds: number; caughtUp: boolean } {
  const seconds = (ms: number) => Math.round(ms / 100) / 10;
  let max = 0;
  // the first sample covering the current one: never before it, and never before the previous one's (a sample
  // skipped covered less than the previous one needed, so less than this one needs)
  let j = 0;
  for (let i = 0; i < samples.length; i++) {
    const need = samples[i].applied - every;
    if (need <= 0) continue;
    j = Math.max(j, i);
    while (j < samples.length && samples[j].covered < need) j++;
    if (j === samples.length)
      return {
        maxLagSeconds: seconds(Math.max(max, samples[samples.length - 1].atMs - samples[i].atMs)),
        caughtUp: false,
      };
    max = Math.max(max, samples[j].atMs - samples[i].atMs);
  }
  return { maxLagSeconds: seconds(max), caughtUp: true };
}
