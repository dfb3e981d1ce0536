import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from './repo-root';

describe('repoRoot', () => {
  const root = join(__dirname, '..');

  it('is the same folder from scripts/ and from the compiled dist/scripts/', () => {
    expect(repoRoot(__dirname)).toBe(root);
    expect(repoRoot(join(root, 'dist', 'scripts'))).toBe(root);
  });

  it("finds the demo data that npm start publishes (seed-demo's folder)", () => {
    expect(
      existsSync(join(repoRoot(join(root, 'dist', 'scripts')), 'test', 'fixtures', 'reference-sample')),
    ).toBe(true);
  });
});
