import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { satisfies, subset } from 'semver';

const ROOT = join(__dirname, '..');
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  engines: { node: string };
};
const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as {
  packages: Record<string, { version?: string; dev?: boolean; engines?: { node?: string } | string[] }>;
};

/**
 * `engines` and the dependency tree agree: every Node version our `engines` admits is admitted by every
 * installed package (direct or transitive, dev included: `npm ci` installs them and warns EBADENGINE).
 */
describe('package.json engines and the installed dependencies', () => {
  it('every package of the lock file runs on every Node version that engines admits', () => {
    const refused = Object.entries(lock.packages)
      .filter(([path, p]) => path !== '' && p.engines && !Array.isArray(p.engines) && p.engines.node)
      .map(([path, p]) => ({
        name: `${path.replace(/^.*node_modules\//, '')}@${p.version}${p.dev ? ' (dev)' : ''}`,
        node: (p.engines as { node: string }).node,
      }))
      .filter((p) => !subset(pkg.engines.node, p.node))
      .map((p) => `${p.name} wants node ${p.node}`);
    expect(refused).toEqual([]);
  });

  it("@fastify/static's content-disposition (Swagger UI at /docs is served through it) loads on the Node we run", () => {
    // the copy @fastify/static loads: an ECMAScript module it `require`s, which Node 22.12+ and 24 load (jest's
    // module loader does not, hence a node of our own)
    const script = `
      const { dirname } = require('node:path');
      const staticDir = dirname(require.resolve('@fastify/static/package.json'));
      const { create } = require(require.resolve('content-disposition', { paths: [staticDir] }));
      process.stdout.write(create('naïve report.txt'));`;
    const out = execFileSync(process.execPath, ['-e', script], { cwd: ROOT, encoding: 'utf8' });
    expect(out).toBe(`attachment; filename="na?ve report.txt"; filename*=UTF-8''na%C3%AFve%20report.txt`);
  });

  it("the tests run on the Node the image runs (the Dockerfile's node:<major>), or the one FLAGLENS_NODE picks", () => {
    const images = [...readFileSync(join(ROOT, 'Dockerfile'), 'utf8').matchAll(/^FROM node:(\d+)-/gm)].map(
      (m) => m[1],
    );
    expect(images.length).toBeGreaterThan(0);
    expect(new Set(images).size).toBe(1);
    const expected = process.env.FLAGLENS_NODE ?? images[0];
    expect(process.versions.node.split('.')[0]).toBe(expected);
    expect(satisfies(process.versions.node, pkg.engines.node)).toBe(true);
    // every node a test spawns by name is that one too (scripts/node-runtime.sh puts it first on PATH)
    expect(execFileSync('node', ['-p', 'process.versions.node'], { encoding: 'utf8' }).trim()).toBe(
      process.versions.node,
    );
  });
});
