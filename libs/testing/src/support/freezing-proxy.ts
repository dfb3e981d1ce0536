import { createConnection, createServer, type Server, type Socket } from 'node:net';

/**
 * A TCP proxy in front of Postgres that can freeze chosen connections: their bytes stop flowing both ways
 * while both sockets stay open, as on a half-open connection or behind a stuck middlebox. Connections are
 * told apart by the `application_name` of their start-up message.
 */
export class FreezingProxy {
  private server?: Server;
  private readonly links: { app: string; client: Socket; server: Socket; frozen: boolean }[] = [];
  port = 0;

  constructor(
    private readonly upstreamPort = 5432,
    private readonly upstreamHost = '127.0.0.1',
  ) {}

  async start(): Promise<number> {
    this.server = createServer((client) => this.accept(client));
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.port = (this.server.address() as { port: number }).port;
    return this.port;
  }

  private accept(client: Socket): void {
    const server = createConnection(this.upstreamPort, this.upstreamHost);
    const link = { app: '', client, server, frozen: false };
    this.links.push(link);
    const drop = () => {
      client.destroy();
      server.destroy();
    };
    client.on('error', drop);
    server.on('error', drop);
    client.on('close', drop);
    server.on('close', drop);
    client.on('data', (d: Buffer) => {
      if (link.app === '') link.app = applicationName(d) ?? '?';
      if (!link.frozen) server.write(d);
    });
    server.on('data', (d: Buffer) => {
      if (!link.frozen) client.write(d);
    });
  }

  /** Freezes every open connection of `app`; returns how many. */
  freeze(app: string): number {
    const hit = this.links.filter((l) => l.app === app && !l.client.destroyed);
    for (const l of hit) l.frozen = true;
    return hit.length;
  }

  async stop(): Promise<void> {
    for (const l of this.links) {
      l.client.destroy();
      l.server.destroy();
    }
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}

/** `application_name` from a Postgres start-up message (protocol 3.0: length, version, key\0value\0 pairs). */
function applicationName(d: Buffer): string | undefined {
  if (d.length < 8 || d.readInt32BE(4) !== 196608) return undefined;
  const parts = d.subarray(8).toString('utf8').split('\u0000');
  const i = parts.indexOf('application_name');
  return i === -1 ? undefined : parts[i + 1];
}
