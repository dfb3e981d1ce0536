/*
 * `npm run -s test:durations`: the seconds each test file took in the last run, from the results jest left in
 * .run/test-results/*.json (the lanes of scripts/test.sh write them: `jest --json --outputFile`), merged into
 * scripts/test-durations.json, which scripts/test-sequencer.js orders and shards the files by. A file missing
 * from the results keeps its recorded seconds; a file gone from the repository is dropped. It also records, as
 * `besideShards`, the seconds of each npm script the lanes ran beside the shards (lint, the unit tests, the chaos
 * run, the benches: from the lanes' logs in .run/lanes/), in the files' units: scaled by the files' seconds over the
 * shards' own (a shard's wall time holds jest's start and each file's set-up, which the files' seconds do not), so
 * the sequencer can weigh a lane's other commands against its shard. Run it after a CI-like run
 * (`npm test -- --ci`) on a quiet machine and commit the file when the lanes no longer end close together.
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

/**
 * Seconds of each command that passed, from lane logs (scripts/lanes.sh: `[lanes HH:MM:SS] LANE: CMD passed
 * after N s`): an npm script by its name (`npm run -s bench -- --quick` → `bench`), a jest shard as `shard N`.
 * Other commands are left out.
 */
export function commandSeconds(logs: string[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const log of logs)
    for (const line of log.split('\n')) {
      const m = /^\[lanes [^\]]*\] [^:]+: (.*) passed after (\d+) s$/.exec(line);
      if (!m) continue;
      const shard = /jest .*--shard=(\d+)\/\d+/.exec(m[1]);
      const script = /\bnpm run -s (\S+)/.exec(m[1]);
      if (shard) out[`shard ${shard[1]}`] = Number(m[2]);
      else if (script) out[script[1]] = Number(m[2]);
    }
  return out;
}

/**
 * The npm scripts' seconds in the files' units: each scaled by the files' seconds over the shards' (both of the
 * same run); unscaled when either is unknown.
 */
export function besideShards(commands: Record<string, number>, fileSeconds: number): Record<string, number> {
  const shards = Object.entries(commands).filter(([k]) => k.startsWith('shard '));
  const shardSeconds = shards.reduce((sum, [, v]) => sum + v, 0);
  const scale = shardSeconds > 0 && fileSeconds > 0 ? fileSeconds / shardSeconds : 1;
  return Object.fromEntries(
    Object.entries(commands)
      .filter(([k]) => !k.startsWith('shard '))
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([k, v]) => [k, Math.round(v * scale * 10) / 10]),
  );
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
  const record = existsSync(recordFile)
    ? (JSON.parse(readFileSync(recordFile, 'utf8')) as {
        seconds: Record<string, number>;
        besideShards?: Record<string, number>;
      })
    : { seconds: {} };
  const old = record.seconds;
  const merged = { ...old, ...fresh };
  const lanesDir = join(root, '.run', 'lanes');
  const logs = existsSync(lanesDir)
    ? readdirSync(lanesDir)
        .filter((f) => f.endsWith('.log'))
        .map((f) => readFileSync(join(lanesDir, f), 'utf8'))
    : [];
  const commands = commandSeconds(logs);
  const freshSeconds = Object.values(fresh).reduce((sum, v) => sum + v, 0);
  const beside = { ...(record.besideShards ?? {}), ...besideShards(commands, freshSeconds) };
  const seconds = Object.fromEntries(
    Object.keys(merged)
      .filter((f) => existsSync(join(root, f)))
      .sort()
      .map((f) => [f, merged[f]]),
  );
  writeFileSync(recordFile, JSON.stringify({ seconds, besideShards: beside }, null, 2) + '\n');
  console.log(
    `[test-durations] ${Object.keys(fresh).length} files from ${files.length} result files, ` +
      `${Object.keys(commands).length} lane commands; ${Object.keys(seconds).length} files and ` +
      `${Object.keys(beside).length} commands beside the shards recorded in ${relative(root, recordFile)}`,
  );
}

if (require.main === module) main();
