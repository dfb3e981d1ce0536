import { isWellFormedText, MAX_TEXT_LENGTH } from '@flaglens/contract';

/**
 * Whether a path parameter could name a stored flag or project: the contract stores names of 1 to 255
 * well-formed characters without U+0000 (Postgres text cannot hold it). Anything else is answered as unknown
 * at once, without a query and without a cache entry keyed by it.
 */
export function couldBeStoredName(name: string): boolean {
  return (
    name.length >= 1 && name.length <= MAX_TEXT_LENGTH && !name.includes('\u0000') && isWellFormedText(name)
  );
}
