import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';

/**
 * The repository's root: the nearest folder at or above `from` that holds package.json. A script runs from
 * scripts/ under ts-node and from dist/scripts/ compiled, so a path built from `__dirname` alone points at the
 * wrong folder in one of the two.
 */
export function repoRoot(from: string): string {
  for (let dir = from; ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json'))) return dir;
    if (dirname(dir) === dir) throw new Error(`no package.json at or above ${from}`);
  }
}
