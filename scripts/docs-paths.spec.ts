/*
 * Every file the docs name exists: a path in backticks in README.md or docs/*.md (with a folder, or a bare file
 * name with an extension of ours) names a file of the repository, by its path from the root or from a folder
 * the text is about (`identity/identity.read-model.ts`), or by its name. A file renamed or removed without its
 * mention fails here.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = join(__dirname, '..');
const files = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard'], {
  cwd: ROOT,
  encoding: 'utf8',
})
  .split('\n')
  .filter(Boolean);
const names = new Set(files.map((f) => f.slice(f.lastIndexOf('/') + 1)));

/** A token that names a file of ours: an extension we write, no wildcard, no placeholder, no URL. */
const FILE = /^[\w@./-]+\.(ts|js|sql|md|json|sh|yml|yaml|conf|html|css|tsv)$/;
/** Files named that are not in the repository: made by the build, or beside it (the brief). */
const ELSEWHERE = new Set(['build-meta.json', 'api-spec.md']);
/** A URL's path (`/schemas/…`), not a file. */
const named = (token: string): boolean =>
  FILE.test(token) &&
  !/[<>*{}]/.test(token) &&
  !token.includes('://') &&
  !token.startsWith('/') &&
  !token.startsWith('.run/') &&
  !ELSEWHERE.has(token);

const exists = (token: string): boolean => {
  const path = token.replace(/^\.\//, '');
  if (!path.includes('/')) return names.has(path);
  return files.some((f) => f === path || f.endsWith(`/${path}`));
};

const docs = [
  'README.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];

describe('the files the docs name', () => {
  it.each(docs)('%s names only files that exist', (doc) => {
    const text = readFileSync(join(ROOT, doc), 'utf8');
    const missing = [...text.matchAll(/`([^`\s]+)`/g)]
      .map((m) => m[1])
      .filter(named)
      .filter((t) => !exists(t));
    expect([...new Set(missing)]).toEqual([]);
  });
});
