import { Client, Pool, type ClientConfig, type PoolConfig } from 'pg';

/**
 * Every Postgres connection of every app is opened here, so that each owns its errors.
 *
 * node-postgres reports a lost connection (a server restart, a failover, a terminated backend, a dropped
 * network) twice: the query that used it fails, and the client emits an `'error'` event. An `'error'` event
 * nobody listens to ends the process. A pool listens to its idle clients only: a client checked out of it (a
 * transaction, a cursor, a checkpoint's connection) is on its own. So each client gets a listener of its own
 * for as long as it lives; the failed query (or the next one, for an idle client) is how its user learns of
 * the loss and retries, and the pool replaces the connection.
 *
 * `eslint.config.mjs` refuses `new Pool(…)` and `new Client(…)` anywhere else in production code.
 */

/** What a lost connection is reported to besides the failed query: by default, nothing (see above). */
export type ConnectionErrorListener = (error: Error) => void;

const ignore: ConnectionErrorListener = () => undefined;

/** A pool whose clients, idle or checked out, never leave an `'error'` event unheard. */
export function openPool(config: PoolConfig, onError: ConnectionErrorListener = ignore): Pool {
  const pool = new Pool(config);
  pool.on('error', (e) => onError(e));
  pool.on('connect', (client) => {
    client.on('error', (e) => onError(e));
  });
  return pool;
}

/** A single connection (not yet connected) that never leaves an `'error'` event unheard. */
export function openClient(config: ClientConfig, onError: ConnectionErrorListener = ignore): Client {
  const client = new Client(config);
  client.on('error', (e) => onError(e));
  return client;
}
