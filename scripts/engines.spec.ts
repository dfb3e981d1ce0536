import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { subset } from 'semver';

const ROOT = join(__dirname, '..');
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  engines: { node: string };
  overrides?: Record<string, unknown>;
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

  it("@fastify/static's content-disposition (Swagger UI at /docs is served through it) is CommonJS with the API it calls", () => {
    // the copy @fastify/static loads (its own node_modules first, as Node resolves it); the override in
    // package.json pins it below the ESM-only major that wants Node >= 22
    const staticDir = dirname(require.resolve('@fastify/static/package.json', { paths: [ROOT] }));
    const cdDir = [staticDir, ROOT]
      .map((d) => join(d, 'node_modules', 'content-disposition'))
      .find((d) => existsSync(d));
    const meta = JSON.parse(readFileSync(join(cdDir!, 'package.json'), 'utf8')) as { type?: string };
    expect(meta.type).not.toBe('module');
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { create } = require(cdDir!) as { create: (name: string) => string };
    expect(create('naïve report.txt')).toBe(
      `attachment; filename="na?ve report.txt"; filename*=UTF-8''na%C3%AFve%20report.txt`,
    );
  });
});
