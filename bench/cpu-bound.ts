/**
 * The cached reads' CPU guard (the bench, `--quick` in CI too): a cached read may cost the api at most
 * CACHED_READ_CPU_BOUND times the CPU per request of the floor (bench/floor-server.ts: a bare authenticated
 * Fastify route answering a body of the same size), both measured in the same run, in turns, under the same load.
 * A ratio of two CPU costs taken side by side: neither a busy machine nor a slower one moves it much (measured:
 * 1.1–1.5 in CI's loaded lanes, up to 2.2 on a quiet machine with the floor on Node 20), a real regression of
 * the hot path (twice its CPU) does. Pure.
 */
export const CACHED_READ_CPU_BOUND = 3;

export interface CpuRow {
  endpoint: string;
  connections: number;
  cpuUsPerRequest?: number;
  floorCpuUsPerRequest?: number;
}

/** One line per read whose CPU per request is past the bound (empty when none is, or none was measured). */
export function cpuOverBound(rows: readonly CpuRow[], bound = CACHED_READ_CPU_BOUND): string[] {
  return rows
    .filter(
      (r) =>
        r.cpuUsPerRequest !== undefined &&
        r.floorCpuUsPerRequest !== undefined &&
        r.floorCpuUsPerRequest > 0 &&
        r.cpuUsPerRequest > bound * r.floorCpuUsPerRequest,
    )
    .map(
      (r) =>
        `${r.endpoint} c=${r.connections}: ${r.cpuUsPerRequest} µs of the api's CPU per request, ` +
        `${(r.cpuUsPerRequest! / r.floorCpuUsPerRequest!).toFixed(2)} times the floor's ${r.floorCpuUsPerRequest} µs ` +
        `(at most ${bound} times)`,
    );
}
