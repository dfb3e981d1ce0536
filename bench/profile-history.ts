import type { FlagEvent } from '@flaglens/contract';
import { generateHistory } from '@flaglens/testing/generate-history';

/** A numeric command-line option (`--name N`), or its default. */
export function numberArg(name: string, dflt: number, args = process.argv.slice(2)): number {
  const i = args.indexOf(name);
  return i >= 0 ? Number(args[i + 1]) : dflt;
}

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
