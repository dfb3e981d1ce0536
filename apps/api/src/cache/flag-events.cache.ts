import { Injectable } from '@nestjs/common';
import { LRUCache } from 'lru-cache';
import { AppConfig } from '@flaglens/config';
import { ChangeListener } from './change-listener.service';
import type { JsonBody } from '../common/json-body';

/**
 * Serialised event-list bodies by feature name, dropped when the projector commits events of that flag.
 * A body read while any change arrived is not stored (it may predate the change).
 */
@Injectable()
export class FlagEventsCache {
  private readonly lru?: LRUCache<string, JsonBody>;
  private seq = 0;

  constructor(
    config: AppConfig,
    private readonly changes: ChangeListener,
  ) {
    if (!changes.enabled) return;
    this.lru = new LRUCache<string, JsonBody>({
      maxSize: config.API_CACHE_MB * 1024 * 1024,
      sizeCalculation: (body, key) => body.bytes.length + key.length + 128,
    });
    changes.subscribe((c) => {
      this.seq++;
      if (c === 'reset' || c.flags === '*') this.lru!.clear();
      else for (const f of c.flags) this.lru!.delete(f);
    });
  }

  get(featureName: string): JsonBody | undefined {
    return this.changes.listening ? this.lru?.get(featureName) : undefined;
  }

  /** A token to pass to `set`, taken before reading the database. */
  begin(): number {
    return this.seq;
  }

  set(featureName: string, body: JsonBody, token: number): void {
    if (this.lru && this.changes.listening && token === this.seq) this.lru.set(featureName, body);
  }
}
