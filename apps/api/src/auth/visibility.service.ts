import { createHash } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { IdentityReadModel } from '@flaglens/projections';
import { CallerCache } from './caller.cache';

/**
 * What a caller may see: the private projects they are not a member of (none for admins). Every answer that
 * holds rows or figures of projects leaves these out, and every cache of such answers is keyed by
 * `visibilityKey` of this set, never by the caller alone (callers with the same set share entries).
 */
@Injectable()
export class Visibility {
  constructor(
    private readonly identity: IdentityReadModel,
    private readonly cache: CallerCache,
  ) {}

  /** The hidden projects of the caller if they are cached, never reading the database (the hot path). */
  cachedHiddenProjects(userId: number): string[] | undefined {
    return this.cache.peek<string[]>(`hidden:${userId}`) ?? undefined;
  }

  /** The private projects the caller may not see, sorted; cached until identity changes. */
  async hiddenProjects(userId: number): Promise<string[]> {
    return (
      (await this.cache.get(`hidden:${userId}`, async () => ({
        value: await this.identity.hiddenProjects(userId),
      }))) ?? []
    );
  }
}

/** A cache key part for a visibility set: '' when nothing is hidden, else a digest of the (sorted) set. */
export function visibilityKey(hidden: readonly string[]): string {
  if (hidden.length === 0) return '';
  const h = createHash('sha256');
  for (const p of hidden) h.update(p).update('\u0000');
  return `h:${h.digest('base64url')}`;
}
