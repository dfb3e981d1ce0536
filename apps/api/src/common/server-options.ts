import type { Server } from 'node:http';

/**
 * The api's Fastify settings (router, timeouts), shared with the bench's floor server (bench/floor-server.ts),
 * which must answer with the same settings to be a fair floor.
 */
export const API_SERVER_OPTIONS = {
  routerOptions: {
    // as the reference (Express): a trailing slash and the path's letter case do not matter
    ignoreTrailingSlash: true,
    caseSensitive: false,
    // flag names and project ids are not length-limited by the reference; Fastify's default is 100
    maxParamLength: 8_192,
  },
  // a slow or stuck client cannot hold a connection forever
  requestTimeout: 30_000,
  connectionTimeout: 60_000,
} as const;

/** The Node server's limits, set once it listens. */
export function tuneServer(server: Server): void {
  server.headersTimeout = 15_000;
  server.maxHeadersCount = 100;
}
