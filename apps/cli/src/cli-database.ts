import { Injectable, OnModuleDestroy } from '@nestjs/common';
import { AppConfig } from '@flaglens/config';
import { activeVersion, Database, openClient, searchPathOption } from '@flaglens/persistence';

/**
 * The CLI's Postgres connection, opened only by the commands that need it (DATABASE_URL, the primary).
 * Unqualified names resolve in the active projection version, then `public`.
 */
@Injectable()
export class CliDatabase implements OnModuleDestroy {
  private ds?: Promise<Database>;

  constructor(private readonly config: AppConfig) {}

  get(): Promise<Database> {
    this.ds ??= (async () => {
      const probe = openClient({ connectionString: this.config.DATABASE_URL });
      await probe.connect();
      const active = await activeVersion(probe).finally(() => probe.end());
      if (!active) throw new Error('there is no active projection version: run `npm run migrate`');
      return new Database({
        url: this.config.DATABASE_URL,
        max: 2,
        applicationName: 'flaglens-cli',
        options: searchPathOption(active.schema),
      });
    })();
    return this.ds;
  }

  async close(): Promise<void> {
    const ds = this.ds;
    this.ds = undefined;
    if (ds) await (await ds).end();
  }

  async onModuleDestroy(): Promise<void> {
    await this.close();
  }
}
