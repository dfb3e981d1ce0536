/*
 * Sums V8's `--trace-gc` output (what `BENCH_GC_TRACE=<dir>` writes per app, libs/testing/src/support/processes.ts)
 * by kind of collection: how many, their pauses (total, mean, longest) and, for mark-compacts, the incremental
 * marking steps done on the main thread before the pause. Usage:
 *   npx ts-node --transpile-only bench/gc-trace.ts <dir>/api-*.log [more logs]
 *
 * A line looks like
 *   [pid:0x…]  17385 ms: Mark-Compact 55.9 (82.3) -> 40.9 (84.3) MB, 16.85 / 0.49 ms  (+ 2.9 ms in 33 steps …) …
 *   [pid:0x…]  38831 ms: Scavenge 56.2 (86.3) -> 42.8 (86.3) MB, 1.99 / 0.33 ms  (average mu = …) task;
 * where the first figure after the sizes is the main thread's pause. Other lines are not collections and are
 * left out.
 */
import { readFileSync } from 'node:fs';

export interface GcKindSummary {
  count: number;
  /** ms the main thread was paused, in all and the longest */
  pauseMs: number;
  maxPauseMs: number;
  /** ms of incremental marking steps before the pauses (mark-compacts) */
  incrementalMs: number;
}

const LINE =
  /^\[\d+:0x[0-9a-f]+\]\s+[\d.]+ ms: ([A-Za-z][A-Za-z -]*?(?: \([a-z]+\))?) [\d.]+ \([\d.]+\) -> [\d.]+ \([\d.]+\) MB, ([\d.]+) \/ [\d.]+ ms(?:\s+\(\+ ([\d.]+) ms in \d+ steps)?/;

/** The collections of a trace by kind (`Scavenge`, `Mark-Compact`, `Mark-Compact (reduce)`, …). */
export function summariseGcTrace(text: string): Record<string, GcKindSummary> {
  const kinds: Record<string, GcKindSummary> = {};
  for (const line of text.split('\n')) {
    const m = LINE.exec(line);
    if (!m) continue;
    const k = (kinds[m[1]] ??= { count: 0, pauseMs: 0, maxPauseMs: 0, incrementalMs: 0 });
    const pause = Number(m[2]);
    k.count++;
    k.pauseMs += pause;
    k.maxPauseMs = Math.max(k.maxPauseMs, pause);
    k.incrementalMs += Number(m[3] ?? 0);
  }
  for (const k of Object.values(kinds)) {
    k.pauseMs = Math.round(k.pauseMs * 10) / 10;
    k.incrementalMs = Math.round(k.incrementalMs * 10) / 10;
  }
  return kinds;
}

if (require.main === module) {
  const files = process.argv.slice(2);
  if (files.length === 0) {
    console.error('usage: npx ts-node --transpile-only bench/gc-trace.ts <trace.log> [more]');
    process.exit(2);
  }
  for (const file of files) {
    console.log(file);
    for (const [kind, k] of Object.entries(summariseGcTrace(readFileSync(file, 'utf8'))))
      console.log(
        `  ${kind}: ${k.count}, paused ${k.pauseMs} ms (mean ${(k.pauseMs / k.count).toFixed(2)}, longest ${k.maxPauseMs})` +
          (k.incrementalMs > 0 ? `, incremental marking ${k.incrementalMs} ms` : ''),
      );
  }
}
