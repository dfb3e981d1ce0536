import { Injectable, Logger, OnApplicationBootstrap, BeforeApplicationShutdown } from '@nestjs/common';
import type { PoolClient } from 'pg';
import { AppConfig } from '@flaglens/config';
import { Database, keepTables, serverKeepsTables } from '@flaglens/persistence';
import { ConsumerProgressMonitor } from './consumer-progress.monitor';
import { CancellableConnection } from './cancellable-connection';
import { WhenIdle, type WhenIdleTiming } from './when-idle';

/**
 * The tables are looked at every 30 s (a read of the statistics collector's counters), the first time 10 s after
 * start; what is due runs when the projector has been idle 1 s, and at least every minute during a backfill
 * (whose tables change fastest: the planner must not plan a 10-million-row log from the statistics of an empty
 * one).
 */
export const TABLE_MAINTENANCE_LOOKS: WhenIdleTiming = {
  everyMs: 30_000,
  firstMs: 10_000,
  idleMs: 1_000,
  atLeastMs: 60_000,
};

/**
 * Keeps the database's tables analyzed and vacuumed by autovacuum's rules where the server does not
 * (libs/persistence/src/table-maintenance.ts): with PROJECTOR_TABLE_MAINTENANCE=auto (the default) only while
 * the server's autovacuum is off, `on` always, `off` never. One projector at a time does it (an advisory lock);
 * each statement is logged with its time.
 */
@Injectable()
export class TableMaintenance implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly log = new Logger('TableMaintenance');
  private readonly looks: WhenIdle;
  private lastFailure?: string;
  private said?: boolean;
  /** The connection of the round in progress */
  private readonly connection: CancellableConnection;

  constructor(
    db: Database,
    private readonly config: AppConfig,
    monitor: ConsumerProgressMonitor,
  ) {
    this.connection = new CancellableConnection(db);
    this.looks = new WhenIdle(
      () => monitor.lastBatchAt,
      TABLE_MAINTENANCE_LOOKS,
      () => this.round(),
    );
  }

  onApplicationBootstrap(): void {
    if (this.config.PROJECTOR_TABLE_MAINTENANCE !== 'off') this.looks.start();
  }

  /** A round in progress is cancelled (a VACUUM of a large table can take minutes; the next start redoes it). */
  async beforeApplicationShutdown(): Promise<void> {
    const stopped = this.looks.stop();
    await this.connection.cancel();
    await stopped;
  }

  /** Never rejects: a failure is logged (once per distinct failure) and the next look tries again. */
  async round(): Promise<void> {
    try {
      // a connection that failed, or that the shutdown may cancel, is not handed to another user
      await this.connection.run(
        (client) => this.maintain(client),
        () => this.looks.stopping,
      );
      this.lastFailure = undefined;
    } catch (e) {
      if (this.looks.stopping) return; // cancelled by the shutdown
      const failure = (e as Error).message;
      if (failure !== this.lastFailure) this.log.warn(`could not maintain the tables: ${failure}`);
      this.lastFailure = failure;
    }
  }

  private async maintain(client: PoolClient): Promise<void> {
    if (this.config.PROJECTOR_TABLE_MAINTENANCE === 'auto') {
      const server = await serverKeepsTables(client);
      if (server !== this.said)
        this.log.log(
          server
            ? "the server's autovacuum keeps the tables"
            : "the server's autovacuum is off: the projector analyzes and vacuums the tables by its rules",
        );
      this.said = server;
      if (server) return;
    }
    const done = await keepTables(client, () => this.looks.stopping);
    for (const d of done ?? []) this.log.log(`${d.command} ${d.schema}.${d.table} in ${d.ms} ms`);
  }
}
