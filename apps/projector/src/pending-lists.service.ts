import { Injectable, Logger, OnApplicationBootstrap, BeforeApplicationShutdown } from '@nestjs/common';
import { AppConfig } from '@flaglens/config';
import { Database, flushPendingLists } from '@flaglens/persistence';
import { CancellableConnection } from './cancellable-connection';
import { ConsumerProgressMonitor } from './consumer-progress.monitor';

/** How often the flusher looks: a second of a backfill's entries is a few MB of pending list. */
export const PENDING_LISTS_LOOK_MS = 1_000;

/** A flush that took longer than this is logged (the index has grown, or the machine is busy). */
const SLOW_FLUSH_MS = 5_000;

/**
 * Flushes the GIN indexes' pending lists (the event search's trigram index) from a connection of its own, at the
 * first look and each second after a batch was committed (libs/persistence/src/table-maintenance.ts, `flushPendingLists`): the merge
 * runs beside the batches instead of inside whichever batch fills the list. The server's autovacuum flushes a
 * list only when it vacuums or analyzes the table, every tenth or so of its rows on an insert-only log, so this
 * runs whether or not it is on; PROJECTOR_TABLE_MAINTENANCE=off turns it off with the rest of the maintenance.
 */
@Injectable()
export class PendingListFlusher implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly log = new Logger('PendingListFlusher');
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;
  private closing = false;
  /** lastBatchAt when the last flush began: a flush runs only after a batch committed since */
  private flushedUpTo = -1;
  private lastFailure?: string;
  private readonly connection: CancellableConnection;

  constructor(
    db: Database,
    private readonly config: AppConfig,
    private readonly monitor: ConsumerProgressMonitor,
  ) {
    this.connection = new CancellableConnection(db);
  }

  onApplicationBootstrap(): void {
    if (this.config.PROJECTOR_TABLE_MAINTENANCE === 'off') return;
    this.timer = setInterval(() => this.look(), PENDING_LISTS_LOOK_MS).unref();
  }

  /** A flush in progress is cancelled: what it did not merge stays in the list for the writers or the next start. */
  async beforeApplicationShutdown(): Promise<void> {
    this.closing = true;
    clearInterval(this.timer);
    await this.connection.cancel();
    await this.running;
  }

  private look(): void {
    const batchAt = this.monitor.lastBatchAt;
    if (this.closing || this.running || batchAt === this.flushedUpTo) return;
    this.flushedUpTo = batchAt;
    this.running = this.flush().finally(() => (this.running = undefined));
  }

  /** Never rejects: a failure is logged (once per distinct failure) and the next look tries again. */
  async flush(): Promise<void> {
    try {
      const done = await this.connection.run(
        (client) => flushPendingLists(client, () => this.closing),
        () => this.closing,
      );
      for (const d of done ?? [])
        if (d.ms > SLOW_FLUSH_MS)
          this.log.log(`flushed ${d.pages} pending pages of ${d.schema}.${d.index} in ${d.ms} ms`);
      this.lastFailure = undefined;
    } catch (e) {
      this.flushedUpTo = -1; // try again at the next look
      if (this.closing) return; // cancelled by the shutdown
      const failure = (e as Error).message;
      if (failure !== this.lastFailure) this.log.warn(`could not flush the pending lists: ${failure}`);
      this.lastFailure = failure;
    }
  }
}
