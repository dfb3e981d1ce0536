import { Injectable, Logger, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import { Client } from 'pg';
import { AppConfig } from '@flaglens/config';
import { CHANGE_CHANNEL, decodeChanges, type Changes } from '@flaglens/projections';

export type ChangeHandler = (changes: Changes | 'reset') => void;

/**
 * LISTENs to the projector's change feed on the primary. While not listening (start-up, lost connection)
 * `listening` is false and caches must not serve or store; every (re)connection sends a `reset`.
 */
@Injectable()
export class ChangeListener implements OnModuleInit, OnModuleDestroy {
  private readonly log = new Logger(ChangeListener.name);
  private client?: Client;
  private handlers: ChangeHandler[] = [];
  private stopped = false;
  private retryDelay = 250;
  listening = false;

  constructor(private readonly config: AppConfig) {}

  /** Caching is only safe when reads come from the database that sends the notices. */
  get enabled(): boolean {
    return this.config.API_CACHE_MB > 0 && !this.config.DATABASE_READ_URL;
  }

  subscribe(handler: ChangeHandler): void {
    this.handlers.push(handler);
  }

  async onModuleInit(): Promise<void> {
    if (this.enabled) await this.connect();
  }

  async onModuleDestroy(): Promise<void> {
    this.stopped = true;
    this.listening = false;
    await this.client?.end().catch(() => undefined);
  }

  private emit(c: Changes | 'reset'): void {
    for (const h of this.handlers) h(c);
  }

  private async connect(): Promise<void> {
    if (this.stopped) return;
    const client = new Client({
      connectionString: this.config.DATABASE_URL,
      application_name: 'flaglens-api-listener',
    });
    client.on('error', (e) => this.lost(client, e));
    client.on('end', () => this.lost(client, new Error('connection ended')));
    client.on('notification', (n) => {
      if (n.channel === CHANGE_CHANNEL) this.emit(decodeChanges(n.payload));
    });
    try {
      await client.connect();
      await client.query(`LISTEN ${CHANGE_CHANNEL}`);
      this.client = client;
      this.retryDelay = 250;
      this.emit('reset'); // anything may have changed while we were not listening
      this.listening = true;
    } catch (e) {
      this.lost(client, e as Error);
    }
  }

  private lost(client: Client, e: Error): void {
    if (this.client && this.client !== client) return;
    this.client = undefined;
    if (this.listening) this.log.warn(`change feed lost (${e.message}); caches off until it is back`);
    this.listening = false;
    this.emit('reset');
    client.removeAllListeners();
    void client.end().catch(() => undefined);
    if (this.stopped) return;
    const delay = this.retryDelay;
    this.retryDelay = Math.min(this.retryDelay * 2, 10000);
    setTimeout(() => void this.connect(), delay).unref();
  }
}
