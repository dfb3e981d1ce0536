// `npm run build`: bundles the web console (apps/console) into dist/console with esbuild: one minified ES
// module and one stylesheet, content-hashed, and index.html naming them. Nothing is fetched at run time.
// `--quiet` prints nothing; the sizes (raw and gzip) are written to dist/console/build-meta.json.
// The files are built in a folder of their own and then renamed into dist/console one by one (index.html
// last), so an api serving dist/console while another build runs (the console e2e test builds it, the chaos
// run and the bench run `npm run build`, side by side in `npm test` and CI) never sees a missing or half-written
// file.
const { mkdirSync, readFileSync, readdirSync, renameSync, rmSync, writeFileSync } = require('node:fs');
const { basename, join } = require('node:path');
const { gzipSync } = require('node:zlib');
const esbuild = require('esbuild');

const root = join(__dirname, '..');
const src = join(root, 'apps', 'console');
const out = join(root, 'dist', 'console');

async function build() {
  const tmp = join(root, 'dist', `.console-${process.pid}-${Date.now()}`);
  try {
    const meta = await buildInto(tmp);
    mkdirSync(out, { recursive: true });
    const built = readdirSync(tmp);
    for (const f of [...built.filter((f) => f !== 'index.html'), 'index.html'])
      renameSync(join(tmp, f), join(out, f));
    // an earlier build's files (other hashes) go, once index.html names the new ones
    for (const f of readdirSync(out))
      if (!built.includes(f)) rmSync(join(out, f), { recursive: true, force: true });
    return meta;
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

async function buildInto(out) {
  rmSync(out, { recursive: true, force: true });
  mkdirSync(out, { recursive: true });
  const result = await esbuild.build({
    entryPoints: [join(src, 'src', 'main.tsx')],
    bundle: true,
    minify: true,
    format: 'esm',
    target: ['chrome110', 'firefox110', 'safari16'],
    jsx: 'automatic',
    jsxImportSource: 'preact',
    outdir: out,
    entryNames: '[name].[hash]',
    metafile: true,
    legalComments: 'linked',
    sourcemap: 'linked',
    define: { 'process.env.NODE_ENV': '"production"' },
    logLevel: 'warning',
  });
  const files = Object.keys(result.metafile.outputs).map((f) => basename(f));
  const js = files.find((f) => /^main\.[0-9A-Z]{8}\.js$/.test(f));
  const css = files.find((f) => /^main\.[0-9A-Z]{8}\.css$/.test(f));
  if (!js || !css) throw new Error(`build-console: missing outputs among ${files.join(', ')}`);
  const html = readFileSync(join(src, 'index.html'), 'utf8').replace('%JS%', js).replace('%CSS%', css);
  writeFileSync(join(out, 'index.html'), html);
  const size = (f) => {
    const b = readFileSync(join(out, f));
    return { file: f, bytes: b.length, gzipBytes: gzipSync(b, { level: 9 }).length };
  };
  const meta = { js: size(js), css: size(css), html: size('index.html') };
  writeFileSync(join(out, 'build-meta.json'), JSON.stringify(meta, null, 2) + '\n');
  await esbuild.stop(); // its service process would keep a caller (a test, the bench) alive
  return meta;
}

if (require.main === module)
  build().then(
    (m) => {
      if (!process.argv.includes('--quiet'))
        console.log(
          `console: ${m.js.file} ${(m.js.gzipBytes / 1024).toFixed(1)} kB gzip, ${m.css.file} ${(m.css.gzipBytes / 1024).toFixed(1)} kB gzip`,
        );
    },
    (e) => {
      console.error(e.message);
      process.exit(1);
    },
  );

module.exports = { build };
