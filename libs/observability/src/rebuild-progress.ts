import { Gauge, Registry } from 'prom-client';
import { LABEL, METRIC } from './metric-names';

/**
 * The rebuild's progress, process-wide (a rebuild runs once per process). Every /metrics of this
 * process shows it; a CLI rebuild without an HTTP server only sets it.
 */
export const rebuildProgressRegistry = new Registry();

const applied = new Gauge({
  name: METRIC.rebuildApplied,
  help: 'Events applied so far by the running rebuild, per projection version being built',
  labelNames: [LABEL.version],
  registers: [rebuildProgressRegistry],
});
const target = new Gauge({
  name: METRIC.rebuildTarget,
  help: 'Events the running rebuild must apply to catch up (sum of the high-water marks it aims at)',
  labelNames: [LABEL.version],
  registers: [rebuildProgressRegistry],
});

/** Called by a rebuild as it goes: events applied so far and the target, for the version being built. */
export function reportRebuildProgress(version: number, progress: { applied: number; target: number }): void {
  applied.set({ [LABEL.version]: String(version) }, progress.applied);
  target.set({ [LABEL.version]: String(version) }, progress.target);
}

/** Called when a rebuild ends (switched or failed): its series disappear. */
export function clearRebuildProgress(version: number): void {
  applied.remove({ [LABEL.version]: String(version) });
  target.remove({ [LABEL.version]: String(version) });
}
