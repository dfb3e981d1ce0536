// `npm run build` (scripts/build.sh): copies the non-TypeScript files the compiled code reads at run time (the
// projection routines' .sql files) beside it in dist/, keeping their paths. A file already in place is left
// alone; a new or changed one is written beside its target and renamed over it, so an app starting from dist/
// meanwhile reads the old file or the new one, never half of one.
const { existsSync, mkdirSync, readFileSync, readdirSync, renameSync, writeFileSync } = require('node:fs');
const { join } = require('node:path');

const root = join(__dirname, '..');

function copySql(from, to) {
  for (const entry of readdirSync(from, { withFileTypes: true })) {
    const src = join(from, entry.name);
    const dest = join(to, entry.name);
    if (entry.isDirectory()) copySql(src, dest);
    else if (entry.name.endsWith('.sql')) {
      const text = readFileSync(src);
      if (existsSync(dest) && readFileSync(dest).equals(text)) continue;
      mkdirSync(to, { recursive: true });
      const tmp = `${dest}.${process.pid}.tmp`;
      writeFileSync(tmp, text);
      renameSync(tmp, dest);
    }
  }
}

copySql(join(root, 'libs'), join(root, 'dist', 'libs'));
if (!existsSync(join(root, 'dist', 'libs', 'projections', 'src', 'identity', 'identity-apply.sql')))
  throw new Error('copy-assets: identity-apply.sql was not copied');
