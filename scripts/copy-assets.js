// `npm run build`: copies the non-TypeScript files the compiled code reads at run time (the projection
// routines' .sql files) beside it in dist/, keeping their paths.
const { cpSync, existsSync, statSync } = require('node:fs');
const { join } = require('node:path');

const root = join(__dirname, '..');
cpSync(join(root, 'libs'), join(root, 'dist', 'libs'), {
  recursive: true,
  filter: (src) => statSync(src).isDirectory() || src.endsWith('.sql'),
});
if (!existsSync(join(root, 'dist', 'libs', 'projections', 'src', 'identity', 'identity-apply.sql')))
  throw new Error('copy-assets: identity-apply.sql was not copied');
