import { createHash } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { IdentityReadModel, isRootAdminRole } from '@flaglens/projections';
import { CallerCache } from './caller.cache';
import { ADMIN_TOKEN_USER_ID } from './unleash-credentials';

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
    if (userId === ADMIN_TOKEN_USER_ID) return [];
    return this.cache.peek<string[]>(`hidden:${userId}`) ?? undefined;
  }

  /**
   * Whether the caller is a root Admin (the predefined root role `Admin`, by name, as Unleash's
   * `AccessReadModel.isRootAdmin`); cached as the hidden projects are.
   */
  async isRootAdmin(userId: number): Promise<boolean> {
    return (
      (await this.cache.get(`root-admin:${userId}`, async () => {
        const role = await this.identity.rootRoleOf(userId);
        return { value: isRootAdminRole(role) };
      })) ?? false
    );
  }

  /** The private projects the caller may not see, sorted; cached until identity changes. */
  async hiddenProjects(userId: number): Promise<string[]> {
    // an Unleash admin API token sees every project, as there (its privateProjectStore)
    if (userId === ADMIN_TOKEN_USER_ID) return [];
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
