// Types of scripts/test-sequencer.js (plain JavaScript: jest loads a sequencer without transforming it).
import Sequencer from '@jest/test-sequencer';

declare class DurationSequencer extends Sequencer {}
declare namespace DurationSequencer {
  function longestFirst(files: string[], durations: Record<string, number>): string[];
  function shardFiles(
    files: string[],
    durations: Record<string, number>,
    index: number,
    count: number,
    headStart?: number[],
  ): string[];
  function readDurations(file?: string): Record<string, number>;
  function readRecord(file?: string): {
    seconds: Record<string, number>;
    besideShards: Record<string, number>;
  };
  function headStarts(spec: string | undefined, beside: Record<string, number>, count: number): number[];
}
export = DurationSequencer;
