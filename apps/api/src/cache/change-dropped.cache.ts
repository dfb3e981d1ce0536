import { LRUCache } from 'lru-cache';
import type { Changes } from '@flaglens/projections';
import { ChangeListener } from './change-listener.service';
import type { JsonBody } from '../common/json-body';

/**
 * Serialised bodies kept until the projector's change feed says they may be stale. `drop` decides what a
 * notice removes; a `reset` (feed lost or regained) clears everything. A body read while any notice arrived
 * is not stored (it may predate the change), and nothing is served or stored while the feed is not listening.
 */
export abstract class ChangeDroppedCache {
  private readonly lru?: LRUCache<string, JsonBody>;
  private seq = 0;

  protected constructor(
    private readonly changes: ChangeListener,
    options: { maxBytes: number; maxEntries?: number },
    drop: (lru: LRUCache<string, JsonBody>, change: Changes) => void,
  ) {
    if (!changes.enabled) return;
    const lru = new LRUCache<string, JsonBody>({
      ...(options.maxEntries ? { max: options.maxEntries } : {}),
      maxSize: options.maxBytes,
      sizeCalculation: (body, key) => body.bytes.length + key.length + 128,
    });
    this.lru = lru;
    changes.subscribe((c) => {
      this.seq++;
      if (c === 'reset') lru.clear();
      else drop(lru, c);
    });
  }

  get(key: string): JsonBody | undefined {
    return this.changes.listening ? this.lru?.get(key) : undefined;
  }

  /** A token to pass to `set`, taken before reading the database. */
  begin(): number {
    return this.seq;
  }

  set(key: string, body: JsonBody, token: number): void {
    if (this.lru && this.changes.listening && token === this.seq) this.lru.set(key, body);
  }
}
