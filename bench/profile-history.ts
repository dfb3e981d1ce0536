import type { FlagEvent } from '@flaglens/contract';
import { generateHistory } from '@flaglens/testing/generate-history';

/** The history the one-process profiles run on (bench/profile-apply.ts, bench/decode.ts): 20 projects of 100 flags. */
export function profileHistory(events: number, rich = false): FlagEvent[] {
  return generateHistory({
    seed: 3,
    projects: 20,
    flagsPerProject: 100,
    events,
    weeks: 52,
    end: '2026-11-22T09:01:00.000Z',
    rich,
  });
}
