// Runs a compiled entry point of the repository (e.g. `node scripts/run-compiled.js apps/cli/src/main`),
// building first (scripts/build.sh, `npm run build`) only when a source file is newer than the last finished
// build: `npm run cli` starts in about a second instead of the five ts-node takes to compile on the fly.
const { execFileSync } = require('node:child_process');
const { readdirSync, statSync } = require('node:fs');
const { delimiter, dirname, join } = require('node:path');

const root = join(__dirname, '..');
const stamp = join(root, 'dist', '.built'); // touched by every finished build

function newest(dir) {
  let latest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === 'node_modules' || entry.name.startsWith('.')) continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) latest = Math.max(latest, newest(path));
    else if (/\.(ts|sql)$/.test(entry.name)) latest = Math.max(latest, statSync(path).mtimeMs);
  }
  return latest;
}

let built = 0;
try {
  built = statSync(stamp).mtimeMs;
} catch {
  // never built
}
const sources = Math.max(
  ...['apps', 'libs', 'migrations', 'scripts'].map((d) => newest(join(root, d))),
  statSync(join(root, 'tsconfig.json')).mtimeMs,
);
if (sources > built) {
  process.stderr.write('[flaglens] building (sources changed since the last build)...\n');
  // the build step itself (its lock keeps it from running twice at once), on this Node
  execFileSync('bash', [join(root, 'scripts', 'build.sh'), '--quiet'], {
    cwd: root,
    env: { ...process.env, PATH: `${dirname(process.execPath)}${delimiter}${process.env.PATH ?? ''}` },
    // the build's report on stderr: stdout is the command's own (`--json` prints one document there)
    stdio: ['ignore', 2, 2],
  });
}
require('./dist-paths');
const entry = process.argv[2];
process.argv.splice(2, 1);
// the program's own name in its usage lines (commander takes it from argv[1])
if (entry === 'apps/cli/src/main') process.argv[1] = join(root, 'bin', 'flaglens');
require(join(root, 'dist', entry));
