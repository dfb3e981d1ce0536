// Builds dist/ (scripts/build.sh, `npm run build`) only when a source file is newer than the last finished build.
// Used by scripts/run-compiled.js (`npm run cli`, `npm run migrate`) and as the integration and end-to-end tiers'
// jest globalSetup: the tests start the apps and the CLI compiled (libs/testing/src/support/processes.ts, cli.ts),
// so a test run after an edit never starts yesterday's build.
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
    else if (/\.(ts|tsx|sql|css)$/.test(entry.name)) latest = Math.max(latest, statSync(path).mtimeMs);
  }
  return latest;
}

/** Builds when sources changed since the last finished build; says so on stderr. */
function ensureBuilt() {
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
  if (sources <= built) return;
  process.stderr.write('[flaglens] building (sources changed since the last build)...\n');
  // the build step itself (its lock keeps it from running twice at once), on this Node
  execFileSync('bash', [join(root, 'scripts', 'build.sh'), '--quiet'], {
    cwd: root,
    env: { ...process.env, PATH: `${dirname(process.execPath)}${delimiter}${process.env.PATH ?? ''}` },
    // the build's report on stderr: stdout is the command's own (`--json` prints one document there)
    stdio: ['ignore', 2, 2],
  });
}

module.exports = ensureBuilt;
