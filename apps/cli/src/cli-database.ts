import { Injectable, OnModuleDestroy } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { AppConfig } from '@flaglens/config';
import { Client } from 'pg';
import { activeVersion, createDataSource, searchPathOption } from '@flaglens/persistence';

/**
 * The CLI's Postgres connection, opened only by the commands that need it (DATABASE_URL, the primary).
 * Unqualified names resolve in the active projection version, then `public`.
 */
@Injectable()
export class CliDatabase implements OnModuleDestroy {
  private ds?: Promise<DataSource>;

  constructor(private readonly config: AppConfig) {}

  get(): Promise<DataSource> {
    this.ds ??= (async () => {
      const probe = new Client({ connectionString: this.config.DATABASE_URL });
      await probe.connect();
      const active = await activeVersion(probe).finally(() => probe.end());
      if (!active) throw new Error('there is no active projection version: run `npm run migrate`');
      return createDataSource({
        url: this.config.DATABASE_URL,
        poolSize: 2,
        applicationName: 'flaglens-cli',
        options: searchPathOption(active.schema),
      }).initialize();
    })();
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
