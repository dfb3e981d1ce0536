/* A Prometheus histogram read from a metrics text, for the bench's figures between two scrapes. */

/**
 * The buckets of histogram `name` (without `_bucket`): upper bound (seconds; +Inf as Infinity) -> cumulative
 * count, summed over the series whose labels pass `keep`.
 */
export function histogramBuckets(
  text: string,
  name: string,
  keep: (labels: string) => boolean = () => true,
): Map<number, number> {
  const buckets = new Map<number, number>();
  for (const [, labels, v] of text.matchAll(new RegExp(`^${name}_bucket\\{([^}]*)\\} ([0-9.e+-]+)$`, 'gm'))) {
    if (!keep(labels)) continue;
    const le = /\ble="([^"]+)"/.exec(labels)?.[1];
    const bound = le === '+Inf' ? Infinity : Number(le);
    buckets.set(bound, (buckets.get(bound) ?? 0) + Number(v));
  }
  return buckets;
}

/**
 * The quantile `q` of what was observed between two readings of the same buckets: the upper bound of the first
 * bucket holding at least `q` of them (Infinity past the last bound); undefined when nothing was observed.
 */
export function bucketQuantile(
  before: Map<number, number>,
  after: Map<number, number>,
  q: number,
): number | undefined {
  const count = (after.get(Infinity) ?? 0) - (before.get(Infinity) ?? 0);
  if (count <= 0) return undefined;
  for (const bound of [...after.keys()].sort((x, y) => x - y))
    if ((after.get(bound) ?? 0) - (before.get(bound) ?? 0) >= q * count) return bound;
  return Infinity;
}
