import { Injectable } from '@nestjs/common';
import { LRUCache } from 'lru-cache';
import { AppConfig } from '@flaglens/config';
import { ChangeListener } from './change-listener.service';
import type { JsonBody } from '../common/json-body';

/**
 * Serialised insights bodies by (today, from, to). Any committed batch can change a trend, so every notice
 * of the change feed clears the cache; a body read while a notice arrived is not stored.
 */
@Injectable()
export class InsightsCache {
  private readonly lru?: LRUCache<string, JsonBody>;
  private seq = 0;

  constructor(
    config: AppConfig,
    private readonly changes: ChangeListener,
  ) {
    if (!changes.enabled) return;
    this.lru = new LRUCache<string, JsonBody>({
      max: 32,
      maxSize: Math.max(1, Math.floor(config.API_CACHE_MB / 4)) * 1024 * 1024,
      sizeCalculation: (body, key) => body.bytes.length + key.length + 128,
    });
    changes.subscribe(() => {
      this.seq++;
      this.lru!.clear();
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
