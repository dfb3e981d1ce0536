import { Injectable, OnModuleDestroy } from '@nestjs/common';
import { AppConfig } from '@flaglens/config';
import { ActiveVersionPool, type RowQueryable } from '@flaglens/persistence';
import { AsOfTooFar, readAsOf, tidyAsOf, type Reads } from '@flaglens/projections';
import { ApiError } from '../common/unleash-errors';

/**
 * Connections for reads as of an instant (`readAsOf`: the events up to the instant replayed into temporary
 * tables, in a transaction rolled back): at most this many at once; a read waits for a free one up to 5 s.
 * A replay costs the database work in proportion to the events up to the instant (docs/performance-reads.md),
 * so a burst of them must not take the connections of the reads of now.
 */
export const AS_OF_CONNECTIONS = 2;

/**
 * The reads of the overview and the profile as of an instant (docs/design.md, "Reads as of an instant"), on
 * the active projection version of the primary (`DATABASE_URL`, even when DATABASE_READ_URL names a replica:
 * a hot standby refuses temporary tables). The pool is opened at the first such read, and follows a rebuild's
 * switch (the active version is looked up before each read).
 */
@Injectable()
export class AsOfReads implements OnModuleDestroy {
  private readonly active: ActiveVersionPool;
  private readonly maxReplay: number;

  constructor(config: AppConfig) {
    this.maxReplay = config.AS_OF_MAX_REPLAY_EVENTS;
    this.active = new ActiveVersionPool(
      config.DATABASE_URL,
      AS_OF_CONNECTIONS,
      30_000,
      config.API_STATEMENT_TIMEOUT_MS,
      // kept while idle: each holds its fresh tables for the next read
      0,
    );
  }

  /**
   * `read` as a flaglens fed only the events up to `at` would run it (its clock is the caller's to pin); `reads`:
   * what its read models declare they read (only the projections of those tables are replayed).
   */
  async read<T>(at: string, reads: readonly Reads[], read: (db: RowQueryable) => Promise<T>): Promise<T> {
    await this.active.refresh();
    const c = await this.active.pool().connect();
    let value: T;
    try {
      // the pool's connections serve only these reads: each keeps its fresh tables for the next
      value = (await readAsOf(c, at, read, { keep: true, reads, maxReplay: this.maxReplay })).value;
    } catch (e) {
      // refused before replaying, its transaction rolled back: the connection (and its fresh tables) kept
      if (e instanceof AsOfTooFar) {
        c.release();
        throw new ApiError(503, 'ServiceUnavailableError', `${e.message}. Please try again later.`);
      }
      // a connection whose read failed may still be inside its transaction: closed, not reused
      c.release(e as Error);
      throw e;
    }
    // the dead rows the read left in them reclaimed after the answer, before the connection is used again
    void tidyAsOf(c).then(
      () => c.release(),
      (e: Error) => c.release(e),
    );
    return value;
  }

  async onModuleDestroy(): Promise<void> {
    await this.active.close();
  }
}
