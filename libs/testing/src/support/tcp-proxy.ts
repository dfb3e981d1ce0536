import { createServer, connect, type Server, type Socket } from 'node:net';
import { freePort } from '@flaglens/testing/support/http';

/**
 * A loopback TCP forwarder to a real server (Postgres, a Kafka broker's bootstrap port): tests point an app
 * at `port`, then make the server unreachable (`close`: every connection reset, nothing listens any more)
 * or reachable (`open`) without touching the shared server itself.
 */
export interface TcpProxy {
  port: number;
  open(): Promise<void>;
  close(): Promise<void>;
}

export async function tcpProxy(targetPort: number, opts: { open?: boolean } = {}): Promise<TcpProxy> {
  const port = await freePort();
  const sockets = new Set<Socket>();
  let server: Server | null = null;
  const track = (s: Socket) => {
    sockets.add(s);
    s.once('close', () => sockets.delete(s));
    s.on('error', () => undefined);
  };
  const proxy: TcpProxy = {
    port,
    open: () =>
      new Promise<void>((resolve, reject) => {
        if (server) return resolve();
        const srv = createServer((client) => {
          const upstream = connect(targetPort, '127.0.0.1');
          track(client);
          track(upstream);
          client.pipe(upstream);
          upstream.pipe(client);
          client.once('close', () => upstream.destroy());
          upstream.once('close', () => client.destroy());
        });
        srv.once('error', reject);
        srv.listen(port, '127.0.0.1', () => {
          server = srv;
          resolve();
        });
      }),
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.resetAndDestroy();
        sockets.clear();
        if (!server) return resolve();
        const srv = server;
        server = null;
        srv.close(() => resolve());
      }),
  };
  if (opts.open !== false) await proxy.open();
  return proxy;
}
