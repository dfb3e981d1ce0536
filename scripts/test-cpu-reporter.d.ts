/** Types of scripts/test-cpu-reporter.js (a CommonJS jest reporter) for its unit test. */
export interface FileCost {
  file: string;
  wallSeconds: number;
  cpuSeconds: number;
}
export function busySeconds(stat: string): number;
export function summary(files: FileCost[]): { files: FileCost[]; wallSeconds: number; cpuSeconds: number };
