// Runs a compiled entry point of the repository (e.g. `node scripts/run-compiled.js apps/cli/src/main`),
// building first only when a source file is newer than the last finished build (scripts/ensure-built.js):
// `npm run cli` starts in about a second instead of the five ts-node takes to compile on the fly.
const { join } = require('node:path');

const root = join(__dirname, '..');
require('./ensure-built')();
require('./dist-paths');
const entry = process.argv[2];
process.argv.splice(2, 1);
// the program's own name in its usage lines (commander takes it from argv[1])
if (entry === 'apps/cli/src/main') process.argv[1] = join(root, 'bin', 'flaglens');
require(join(root, 'dist', entry));
