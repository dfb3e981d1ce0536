import { Injectable, Logger, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import type { Pool } from 'pg';
import { AppConfig } from '@flaglens/config';
import { ActiveVersionPool, type ReadPool } from '@flaglens/persistence';
import { ChangeListener } from './change-listener.service';

/**
 * The api's connections to the active projection version (on the replica when DATABASE_READ_URL is set).
 * Follows a rebuild's switch: at once through the change feed, and by a periodic check otherwise.
 */
@Injectable()
export class ProjectionReads implements ReadPool, OnModuleInit, OnModuleDestroy {
  private readonly log = new Logger(ProjectionReads.name);
  private readonly active: ActiveVersionPool;
  private timer?: NodeJS.Timeout;

  constructor(config: AppConfig, changes: ChangeListener) {
    this.active = new ActiveVersionPool(
      config.DATABASE_READ_URL ?? config.DATABASE_URL,
      config.DB_POOL_SIZE,
      30_000,
      config.API_STATEMENT_TIMEOUT_MS,
    );
    changes.subscribe((c) => {
      if (c === 'reset' || c.everything) void this.refresh();
    });
  }

  pool(): Pool {
    return this.active.pool();
  }

  get schema(): string | undefined {
    return this.active.schema;
  }

  async onModuleInit(): Promise<void> {
    await this.active.refresh();
    this.log.log(`reading projections from ${this.active.schema}`);
    this.timer = setInterval(() => void this.refresh(), 5000).unref();
  }

  async onModuleDestroy(): Promise<void> {
    clearInterval(this.timer);
    await this.active.close();
  }

  private async refresh(): Promise<void> {
    try {
      if (await this.active.refresh()) this.log.log(`switched to projection version ${this.active.schema}`);
    } catch (e) {
      this.log.warn(`could not check the active projection version: ${(e as Error).message}`);
    }
  }
}
