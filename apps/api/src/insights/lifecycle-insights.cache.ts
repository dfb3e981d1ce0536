import { Injectable } from '@nestjs/common';
import { AppConfig } from '@flaglens/config';
import { LIFECYCLE_READS } from '@flaglens/projections';
import type { JsonBody } from '../common/json-body';
import { ChangeDroppedCache } from '../read-db/change-dropped.cache';
import { ChangeListener } from '../read-db/change-listener.service';
import { ProjectionReads } from '../read-db/projection-reads.service';

/**
 * Serialised lifecycle summaries by (projects, visibility set), each until the instant a figure moves with
 * the clock, and until a batch writes what they read (LIFECYCLE_READS).
 */
@Injectable()
export class LifecycleInsightsCache extends ChangeDroppedCache<JsonBody> {
  constructor(config: AppConfig, changes: ChangeListener, reads: ProjectionReads) {
    super(changes, reads, {
      maxBytes: Math.max(1, Math.floor(config.API_CACHE_MB / 16)) * 1024 * 1024,
      sizeOf: (b, key) => b.bytes.length + key.length,
      reads: LIFECYCLE_READS,
    });
  }
}
