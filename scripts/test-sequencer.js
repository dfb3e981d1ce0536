// @ts-check
/*
 * Jest's test sequencer for this repository (jest.config.js `testSequencer`). Test files differ in length by two
 * orders of magnitude (a unit file: under a second; an end-to-end file that starts a real Unleash: minutes), and
 * CI runs a tier's files on several workers and shards (scripts/test.sh): what finishes last decides how long CI
 * takes. Jest's own order (longest first from its cache, else largest file first) knows nothing on a clean clone,
 * and its `--shard` splits by a hash of the path. This uses the seconds each file took in a recorded run
 * (scripts/test-durations.json, written by `npm run -s test:durations` from the results the lanes leave in
 * .run/test-results/):
 * - sort: longest first, so no long file starts last (a file with no record counts as the median: new files
 *   run in the middle of the order, not at its end);
 * - shard (`--shard=i/n`): each file, longest first, to the shard with the least seconds so far (the
 *   longest-processing-time rule), so shards end close together. A shard runs in a lane beside other commands
 *   (scripts/test.sh: lint and the unit tests before shard 1, the chaos run and the benches after shard 2):
 *   FLAGLENS_SHARD_BESIDE names them (`lint,test:unit;test:chaos,bench`: the npm scripts of each shard's lane,
 *   shards split by `;`), and the record's `besideShards` holds their seconds, so each shard starts with its
 *   lane's other seconds already counted and the lanes, not the shards, end close together.
 * Pure apart from reading the record; docs/testing.md, "Lanes", says how the tiers use it.
 */
const { readFileSync } = require('node:fs');
const { join, relative } = require('node:path');
const Sequencer = require('@jest/test-sequencer').default;

const ROOT = join(__dirname, '..');
const RECORD = join(ROOT, 'scripts', 'test-durations.json');

/** @returns {{ seconds: Record<string, number>, besideShards: Record<string, number> }} the record: seconds per
 * file (by path relative to the repository's root) and per npm script run beside the shards, in the files' units */
function readRecord(file = RECORD) {
  try {
    const parsed = JSON.parse(readFileSync(file, 'utf8'));
    const obj = (/** @type {unknown} */ v) =>
      v && typeof v === 'object' ? /** @type {Record<string, number>} */ (v) : {};
    return { seconds: obj(parsed?.seconds), besideShards: obj(parsed?.besideShards) };
  } catch {
    return { seconds: {}, besideShards: {} };
  }
}

/** @returns {Record<string, number>} seconds per file, by path relative to the repository's root */
function readDurations(file = RECORD) {
  return readRecord(file).seconds;
}

/**
 * The seconds each shard's lane spends on its other commands: `spec` names them per shard (`a,b;c`: shard 1's
 * lane also runs the npm scripts a and b, shard 2's c), `beside` holds their seconds. A script with no record
 * counts 0; a shard the spec does not name starts at 0.
 * @param {string | undefined} spec
 * @param {Record<string, number>} beside
 * @param {number} count
 * @returns {number[]}
 */
function headStarts(spec, beside, count) {
  const lanes = (spec ?? '').split(';');
  return Array.from({ length: count }, (_, i) =>
    (lanes[i] ?? '')
      .split(',')
      .map((name) => name.trim())
      .filter(Boolean)
      .reduce(
        (sum, name) => sum + (Number.isFinite(beside[name]) && beside[name] >= 0 ? beside[name] : 0),
        0,
      ),
  );
}

/**
 * The files' expected seconds: the record's, or the median of the record for a file it does not hold.
 * @param {string[]} files paths relative to the repository's root
 * @param {Record<string, number>} durations
 * @returns {Map<string, number>}
 */
function expectedSeconds(files, durations) {
  const known = Object.values(durations)
    .filter((s) => Number.isFinite(s) && s >= 0)
    .sort((a, b) => a - b);
  const median = known.length ? known[Math.floor(known.length / 2)] : 1;
  return new Map(files.map((f) => [f, Number.isFinite(durations[f]) ? durations[f] : median]));
}

/**
 * Longest first; ties by path, so the order is the same on every machine.
 * @param {string[]} files
 * @param {Record<string, number>} durations
 * @returns {string[]}
 */
function longestFirst(files, durations) {
  const s = expectedSeconds(files, durations);
  return [...files].sort((a, b) => (s.get(b) ?? 0) - (s.get(a) ?? 0) || (a < b ? -1 : a > b ? 1 : 0));
}

/**
 * The files of shard `index` (1-based) of `count`: longest first, each to the shard with the fewest seconds so
 * far (the lower index on a tie), each shard starting at its head start (the seconds of its lane's other
 * commands; none by default). Every file is in exactly one shard.
 * @param {string[]} files
 * @param {Record<string, number>} durations
 * @param {number} index
 * @param {number} count
 * @param {number[]} [headStart]
 * @returns {string[]}
 */
function shardFiles(files, durations, index, count, headStart = []) {
  if (!Number.isInteger(count) || count < 1 || !Number.isInteger(index) || index < 1 || index > count)
    throw new Error(`shard ${index}/${count}: want 1 <= index <= count`);
  const s = expectedSeconds(files, durations);
  const load = Array.from({ length: count }, (_, i) => headStart[i] ?? 0);
  /** @type {string[]} */
  const mine = [];
  for (const f of longestFirst(files, durations)) {
    let least = 0;
    for (let i = 1; i < count; i++) if (load[i] < load[least]) least = i;
    load[least] += s.get(f) ?? 0;
    if (least === index - 1) mine.push(f);
  }
  return mine;
}

class DurationSequencer extends Sequencer {
  /** @param {import('@jest/test-result').Test[]} tests */
  sort(tests) {
    const byPath = new Map(tests.map((t) => [relative(ROOT, t.path), t]));
    return longestFirst([...byPath.keys()], readDurations()).map((p) => /** @type {any} */ (byPath.get(p)));
  }

  /**
   * @param {import('@jest/test-result').Test[]} tests
   * @param {{ shardIndex: number, shardCount: number }} options
   */
  shard(tests, { shardIndex, shardCount }) {
    const byPath = new Map(tests.map((t) => [relative(ROOT, t.path), t]));
    const { seconds, besideShards } = readRecord();
    const start = headStarts(process.env.FLAGLENS_SHARD_BESIDE, besideShards, shardCount);
    return shardFiles([...byPath.keys()], seconds, shardIndex, shardCount, start).map(
      (p) => /** @type {any} */ (byPath.get(p)),
    );
  }
}

module.exports = DurationSequencer;
module.exports.longestFirst = longestFirst;
module.exports.shardFiles = shardFiles;
module.exports.readDurations = readDurations;
module.exports.readRecord = readRecord;
module.exports.headStarts = headStarts;
