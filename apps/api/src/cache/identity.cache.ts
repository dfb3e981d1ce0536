import { Injectable } from '@nestjs/common';
import { LRUCache } from 'lru-cache';
import { ChangeListener } from './change-listener.service';

/**
 * What the api looks up about the caller on every request — the owner of a token, the private projects the
 * caller may not see, the profile — kept until the projector (or a token revocation) commits anything that
 * may change identity: a notice naming any project, or every project. Only while the change feed is
 * listening; a value read while a notice arrived is not kept. Unknown tokens are never kept.
 */
@Injectable()
export class IdentityCache {
  private readonly lru?: LRUCache<string, { value: unknown; until: number }>;
  private seq = 0;

  constructor(private readonly changes: ChangeListener) {
    if (!changes.enabled) return;
    this.lru = new LRUCache({ max: 50_000 });
    changes.subscribe((c) => {
      if (c !== 'reset' && Array.isArray(c.projects) && c.projects.length === 0) return;
      this.seq++;
      this.lru!.clear();
    });
  }

  /** The cached value of `key`, else `load()` (kept until `until` ms since the epoch, if given). */
  async get<T>(key: string, load: () => Promise<{ value: T; until?: number } | null>): Promise<T | null> {
    const now = Date.now();
    const hit = this.changes.listening ? this.lru?.get(key) : undefined;
    if (hit && hit.until > now) return hit.value as T;
    const seq = this.seq;
    const loaded = await load();
    if (loaded === null) return null;
    if (this.lru && this.changes.listening && seq === this.seq) {
      this.lru.set(key, { value: loaded.value, until: loaded.until ?? Number.POSITIVE_INFINITY });
    }
    return loaded.value;
  }
}
