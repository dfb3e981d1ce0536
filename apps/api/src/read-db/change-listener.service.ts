import { Injectable, Logger, OnModuleDestroy, OnModuleInit, Optional } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import type { Client } from 'pg';
import { openClient } from '@flaglens/persistence';
import { AppConfig } from '@flaglens/config';
import { ApiCacheMetrics } from '@flaglens/observability';
import { CHANGE_CHANNEL, decodeChanges, type Changes } from '@flaglens/projections';

export type ChangeHandler = (changes: Changes | 'reset') => void;

/** The listener's own round trip: it notifies itself here and must hear it back. */
const PING_CHANNEL = 'flaglens_listener_ping';
/** How often the feed is checked, and how long a ping may take before the feed counts as lost. */
export const PING_EVERY_MS = 1000;
export const PING_DEADLINE_MS = 3000;

/**
 * LISTENs to the projector's change feed on the primary. While not listening (start-up, lost connection)
 * `listening` is false and caches must not serve or store; every (re)connection sends a `reset`.
 *
 * The feed's health is checked end to end, not assumed: TCP keepalive on the connection, and every second
 * the listener NOTIFYs itself and must hear the notice back within 3 s. A half-open connection (no error, no
 * data), a server restart, or a pooler in transaction mode (which accepts LISTEN but never delivers) all fail
 * that round trip: the feed is then lost, every cache is dropped (`reset`) and a new connection is made.
 */
@Injectable()
export class ChangeListener implements OnModuleInit, OnModuleDestroy {
  private readonly log = new Logger(ChangeListener.name);
  private client?: Client;
  private handlers: ChangeHandler[] = [];
  private stopped = false;
  private retryDelay = 250;
  private pingTimer?: NodeJS.Timeout;
  private pending?: { nonce: string; sentAt: number };
  listening = false;

  constructor(
    private readonly config: AppConfig,
    @Optional() private readonly metrics?: ApiCacheMetrics,
  ) {}

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
    clearInterval(this.pingTimer);
    await this.client?.end().catch(() => undefined);
  }

  private emit(c: Changes | 'reset'): void {
    this.metrics?.changeNotices.inc({
      scope: c === 'reset' ? 'reset' : c.everything ? 'everything' : 'named',
    });
    for (const h of this.handlers) h(c);
  }

  private async connect(): Promise<void> {
    if (this.stopped) return;
    const client: Client = openClient(
      {
        connectionString: this.config.DATABASE_URL,
        application_name: 'flaglens-api-listener',
        keepAlive: true,
        keepAliveInitialDelayMillis: 5000,
        connectionTimeoutMillis: PING_DEADLINE_MS,
      },
      (e) => this.lost(client, e),
    );
    client.on('end', () => this.lost(client, new Error('connection ended')));
    client.on('notification', (n) => {
      if (n.channel === CHANGE_CHANNEL) this.emit(decodeChanges(n.payload));
      else if (n.channel === PING_CHANNEL && n.payload === this.pending?.nonce) this.pending = undefined;
    });
    try {
      await client.connect();
      await client.query(`LISTEN ${CHANGE_CHANNEL}; LISTEN ${PING_CHANNEL}`);
      this.client = client;
      this.retryDelay = 250;
      this.pending = undefined;
      this.emit('reset'); // anything may have changed while we were not listening
      this.listening = true;
      clearInterval(this.pingTimer);
      this.pingTimer = setInterval(() => this.ping(client), PING_EVERY_MS).unref();
    } catch (e) {
      this.lost(client, e as Error);
    }
  }

  /** One round trip of the feed: the previous ping must have come back; then the next one goes out. */
  private ping(client: Client): void {
    if (this.client !== client) return;
    const now = Date.now();
    if (this.pending && now - this.pending.sentAt > PING_DEADLINE_MS) {
      this.lost(client, new Error(`no notice came back within ${PING_DEADLINE_MS} ms`));
      return;
    }
    if (this.pending) return;
    const nonce = randomBytes(8).toString('hex');
    this.pending = { nonce, sentAt: now };
    client.query('SELECT pg_notify($1, $2)', [PING_CHANNEL, nonce]).catch((e: Error) => this.lost(client, e));
  }

  private lost(client: Client, e: Error): void {
    if (this.client && this.client !== client) return;
    this.client = undefined;
    clearInterval(this.pingTimer);
    this.pending = undefined;
    if (this.listening) this.log.warn(`change feed lost (${e.message}); caches off until it is back`);
    this.listening = false;
    this.emit('reset');
    client.removeAllListeners();
    client.on('error', () => undefined);
    void client.end().catch(() => undefined);
    // a frozen connection may never finish ending: its socket goes anyway
    const socket = (client as unknown as { connection?: { stream?: { destroy(): void } } }).connection
      ?.stream;
    setTimeout(() => socket?.destroy(), 1000).unref();
    if (this.stopped) return;
    const delay = this.retryDelay;
    this.retryDelay = Math.min(this.retryDelay * 2, 10000);
    setTimeout(() => void this.connect(), delay).unref();
  }
}
