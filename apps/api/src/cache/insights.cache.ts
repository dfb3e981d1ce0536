import { Injectable } from '@nestjs/common';
import { AppConfig } from '@flaglens/config';
import { ChangeDroppedCache } from './change-dropped.cache';
import { ChangeListener } from './change-listener.service';

/** Serialised insights bodies by (today, from, to). Any committed batch can change a trend: every notice clears it. */
@Injectable()
export class InsightsCache extends ChangeDroppedCache {
  constructor(config: AppConfig, changes: ChangeListener) {
    super(
      changes,
      { maxEntries: 32, maxBytes: Math.max(1, Math.floor(config.API_CACHE_MB / 4)) * 1024 * 1024 },
      (lru) => lru.clear(),
    );
  }
}
