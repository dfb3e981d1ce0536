/*
 * `npm run -s test:durations`: the seconds each test file took in the last run, from the results jest left in
 * .run/test-results/*.json (the lanes of scripts/test.sh write them: `jest --json --outputFile`), merged into
 * scripts/test-durations.json, which scripts/test-sequencer.js orders and shards the files by. A file missing
 * from the results keeps its recorded seconds; a file gone from the repository is dropped. Run it after a CI-like
 * run (`npm test -- --ci`) on a quiet machine and commit the file when the lanes no longer end close together.
 */
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { repoRoot } from './repo-root';

interface JestJson {
  testResults?: { name: string; startTime: number; endTime: number }[];
}

/** Seconds per file (relative to `root`, tenths) from jest's `--json` results. */
export function secondsFromResults(root: string, results: JestJson[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const r of results)
    for (const t of r.testResults ?? []) {
      if (!Number.isFinite(t.startTime) || !Number.isFinite(t.endTime) || t.endTime < t.startTime) continue;
      const file = relative(root, t.name);
      if (file.startsWith('..')) continue; // a result of another checkout
      out[file] = Math.round((t.endTime - t.startTime) / 100) / 10;
    }
  return out;
}

function main(): void {
  const root = repoRoot(__dirname);
  const dir = join(root, '.run', 'test-results');
  const files = existsSync(dir) ? readdirSync(dir).filter((f) => f.endsWith('.json')) : [];
  if (!files.length) {
    console.error(`[test-durations] no results in ${relative(root, dir)}/: run the tests first (npm test)`);
    process.exit(1);
  }
  const fresh = secondsFromResults(
    root,
    files.map((f) => JSON.parse(readFileSync(join(dir, f), 'utf8')) as JestJson),
  );
  const recordFile = join(root, 'scripts', 'test-durations.json');
  const old = existsSync(recordFile)
    ? (JSON.parse(readFileSync(recordFile, 'utf8')) as { seconds: Record<string, number> }).seconds
    : {};
  const merged = { ...old, ...fresh };
  const seconds = Object.fromEntries(
    Object.keys(merged)
      .filter((f) => existsSync(join(root, f)))
      .sort()
      .map((f) => [f, merged[f]]),
  );
  writeFileSync(recordFile, JSON.stringify({ seconds }, null, 2) + '\n');
  console.log(
    `[test-durations] ${Object.keys(fresh).length} files from ${files.length} result files; ` +
      `${Object.keys(seconds).length} recorded in ${relative(root, recordFile)}`,
  );
}

if (require.main === module) main();
