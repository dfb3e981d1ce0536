import { Injectable, OnModuleDestroy } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { AppConfig } from '@flaglens/config';
import { createDataSource } from '@flaglens/persistence';

/** The CLI's Postgres connection, opened only by the commands that need it (DATABASE_URL, the primary). */
@Injectable()
export class CliDatabase implements OnModuleDestroy {
  private ds?: Promise<DataSource>;

  constructor(private readonly config: AppConfig) {}

  get(): Promise<DataSource> {
    this.ds ??= createDataSource({
      url: this.config.DATABASE_URL,
      poolSize: 2,
      applicationName: 'flaglens-cli',
    }).initialize();
    return this.ds;
  }

  async close(): Promise<void> {
    const ds = this.ds;
    this.ds = undefined;
    if (ds) await (await ds).destroy();
  }

  async onModuleDestroy(): Promise<void> {
    await this.close();
  }
}
