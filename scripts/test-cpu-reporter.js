// @ts-check
/*
 * A jest reporter that records what each test file cost the machine: its wall seconds and the CPU seconds every
 * process of the machine used meanwhile (/proc/stat: the file's own process, the apps, brokers, browsers and
 * Postgres backends it started). The suite is bound by the two cores, so a file's CPU, not its wall time, is
 * what running it costs the other lane. Meaningful with the files run one at a time on an otherwise idle
 * machine (`npm run test:cpu`); its output, `.run/test-results/cpu.json`, is rewritten after each file:
 * `{ files: [{ file, wallSeconds, cpuSeconds }], wallSeconds, cpuSeconds }`, the costliest file first.
 */
const { mkdirSync, readFileSync, writeFileSync } = require('node:fs');
const { dirname, join, relative } = require('node:path');

const ROOT = join(__dirname, '..');
const OUT = process.env.FLAGLENS_TEST_CPU_OUT ?? join(ROOT, '.run', 'test-results', 'cpu.json');
/** /proc/stat counts in USER_HZ, 100 per second on Linux */
const TICKS_PER_SECOND = 100;

/**
 * The machine's busy CPU seconds so far, from the first line of /proc/stat: every column but idle and iowait.
 * @param {string} stat the text of /proc/stat
 */
function busySeconds(stat) {
  const line = stat.split('\n').find((l) => l.startsWith('cpu '));
  if (!line) throw new Error('no "cpu " line in /proc/stat');
  // user nice system idle iowait irq softirq steal: guest and guest_nice follow, already counted in user and nice
  // (as bench/proc.ts's machineCpuSeconds reads them)
  const ticks = line.trim().split(/\s+/).slice(1, 9).map(Number);
  if (ticks.length < 4 || ticks.some((t) => !Number.isFinite(t)))
    throw new Error(`unreadable /proc/stat line: ${line}`);
  const total = ticks.reduce((a, b) => a + b, 0);
  return (total - ticks[3] - (ticks[4] ?? 0)) / TICKS_PER_SECOND;
}

/**
 * The record: files sorted by CPU seconds, costliest first, and their sums.
 * @param {{ file: string, wallSeconds: number, cpuSeconds: number }[]} files
 */
function summary(files) {
  const sorted = [...files].sort((a, b) => b.cpuSeconds - a.cpuSeconds);
  const round = (/** @type {number} */ x) => Number(x.toFixed(1));
  return {
    files: sorted.map((f) => ({
      file: f.file,
      wallSeconds: round(f.wallSeconds),
      cpuSeconds: round(f.cpuSeconds),
    })),
    wallSeconds: round(files.reduce((s, f) => s + f.wallSeconds, 0)),
    cpuSeconds: round(files.reduce((s, f) => s + f.cpuSeconds, 0)),
  };
}

class TestCpuReporter {
  constructor() {
    /** @type {Map<string, { busy: number, at: number }>} */
    this.started = new Map();
    /** @type {{ file: string, wallSeconds: number, cpuSeconds: number }[]} */
    this.files = [];
  }

  now() {
    return { busy: busySeconds(readFileSync('/proc/stat', 'utf8')), at: Date.now() };
  }

  /** @param {{ path: string }} test */
  onTestFileStart(test) {
    this.started.set(test.path, this.now());
  }

  /** @param {{ path: string }} test */
  onTestFileResult(test) {
    const start = this.started.get(test.path);
    if (!start) return;
    const end = this.now();
    this.files.push({
      file: relative(ROOT, test.path),
      wallSeconds: (end.at - start.at) / 1000,
      cpuSeconds: end.busy - start.busy,
    });
    mkdirSync(dirname(OUT), { recursive: true });
    writeFileSync(OUT, JSON.stringify(summary(this.files), null, 2) + '\n');
  }

  onRunComplete() {
    const s = summary(this.files);
    const top = s.files.slice(0, 10).map((f) => `  ${f.cpuSeconds} CPU-s, ${f.wallSeconds} s: ${f.file}`);
    console.log(
      `[test-cpu] ${s.files.length} files: ${s.cpuSeconds} CPU-s over ${s.wallSeconds} s (${relative(ROOT, OUT)}); the costliest:\n${top.join('\n')}`,
    );
  }
}

module.exports = TestCpuReporter;
module.exports.busySeconds = busySeconds;
module.exports.summary = summary;
