import { Injectable } from '@nestjs/common';
import { AppConfig } from '@flaglens/config';
import { ChangeDroppedCache } from './change-dropped.cache';
import { ChangeListener } from './change-listener.service';

/** Serialised event-list bodies by feature name, dropped when the projector commits events of that flag. */
@Injectable()
export class FlagEventsCache extends ChangeDroppedCache {
  constructor(config: AppConfig, changes: ChangeListener) {
    super(changes, { maxBytes: config.API_CACHE_MB * 1024 * 1024 }, (lru, c) => {
      if (c.flags === '*') lru.clear();
      else for (const f of c.flags) lru.delete(f);
    });
  }
}
