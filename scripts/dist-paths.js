// Preloaded (`node -r ./scripts/dist-paths.js dist/...`) by every start of compiled code: npm's start scripts,
// `npm start`, the image's entry point, scripts/run-compiled.js. First it checks that dist/ was built: starting an
// app never builds (one build step, scripts/build.sh), so with nothing built it stops at once and names the
// command. Then it resolves the @flaglens/* path aliases of tsconfig.json inside the compiled output (dist/).
const { existsSync } = require('node:fs');
const { join } = require('node:path');

const dist = join(__dirname, '..', 'dist');
if (!existsSync(join(dist, '.built'))) {
  process.stderr.write('flaglens: dist/ holds no finished build: run `npm run build` first\n');
  process.exit(1);
}
const { register } = require('tsconfig-paths');
const { compilerOptions } = require('../tsconfig.json');
register({ baseUrl: dist, paths: compilerOptions.paths });
