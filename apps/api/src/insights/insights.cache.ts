import { Injectable } from '@nestjs/common';
import { AppConfig } from '@flaglens/config';
import { READS_ANYTHING } from '@flaglens/projections';
import type { JsonBody } from '../common/json-body';
import { ChangeDroppedCache } from '../read-db/change-dropped.cache';
import { ChangeListener } from '../read-db/change-listener.service';
import { ProjectionReads } from '../read-db/projection-reads.service';

/**
 * Serialised reports by (today, from, to, visibility set). Any committed batch can change a trend: every
 * notice drops them all.
 */
@Injectable()
export class InsightsCache extends ChangeDroppedCache<JsonBody> {
  constructor(config: AppConfig, changes: ChangeListener, reads: ProjectionReads) {
    super(changes, reads, {
      maxBytes: Math.max(1, Math.floor(config.API_CACHE_MB / 4)) * 1024 * 1024,
      sizeOf: (b) => b.bytes.length,
      reads: READS_ANYTHING,
    });
  }
}
