import { bucketQuantile, histogramBuckets } from './histogram-text';

const scrape = (fast: number, slow: number) => `# TYPE h histogram
h_bucket{le="0.01",route="/a"} ${fast}
h_bucket{le="0.1",route="/a"} ${fast + slow}
h_bucket{le="+Inf",route="/a"} ${fast + slow}
h_bucket{le="0.01",route="/b"} 5
h_bucket{le="0.1",route="/b"} 5
h_bucket{le="+Inf",route="/b"} 7
h_sum{route="/a"} 1
h_count{route="/a"} ${fast + slow}`;

describe('histograms read from a metrics text', () => {
  it('sums the buckets of the series kept, by upper bound', () => {
    expect([...histogramBuckets(scrape(3, 1), 'h')]).toEqual([
      [0.01, 8],
      [0.1, 9],
      [Infinity, 11],
    ]);
    expect([...histogramBuckets(scrape(3, 1), 'h', (l) => l.includes('route="/a"'))]).toEqual([
      [0.01, 3],
      [0.1, 4],
      [Infinity, 4],
    ]);
  });

  it('gives the bound of the bucket holding the quantile of what was observed between two scrapes', () => {
    const a = (t: string) => histogramBuckets(t, 'h', (l) => l.includes('route="/a"'));
    // between the scrapes: 97 fast, 3 slow
    expect(bucketQuantile(a(scrape(3, 1)), a(scrape(100, 4)), 0.5)).toBe(0.01);
    expect(bucketQuantile(a(scrape(3, 1)), a(scrape(100, 4)), 0.99)).toBe(0.1);
    expect(bucketQuantile(a(scrape(3, 1)), a(scrape(3, 1)), 0.99)).toBeUndefined();
    // past the last finite bound
    const b = (t: string) => histogramBuckets(t, 'h', (l) => l.includes('route="/b"'));
    expect(bucketQuantile(new Map(), b(scrape(0, 0)), 0.99)).toBe(Infinity);
  });
});
