import { Registry } from 'prom-client';
import { countEventOutcomes, ProjectorMetrics } from './projector-metrics';
import { MetricsRegistry } from './metrics-registry';
import { bearerMatches } from './metrics.controller';
import { routeOf } from './http-metrics';
import { PartitionProgress } from './partition-progress';

const ev = (id: number, type: string, knownType = true) => ({ event: { id, type }, knownType });

describe('countEventOutcomes', () => {
  it('splits a batch into stored, duplicate and dead-lettered, by type (unknown types as `unknown`)', () => {
    const accepted = [
      ev(1, 'feature-created'),
      ev(2, 'feature-created'),
      ev(3, 'x-new', false),
      ev(4, 'feature-updated'),
    ];
    const counts = countEventOutcomes({
      accepted,
      stored: [accepted[0], accepted[2]],
      dead: [
        { code: 'malformed-json', eventId: null },
        { code: 'db-rejected', eventId: 4 },
      ],
    });
    const flat = Object.fromEntries(
      [...counts].flatMap(([type, m]) => [...m].map(([o, n]) => [`${type}/${o}`, n])),
    );
    expect(flat).toEqual({
      'feature-created/stored': 1,
      'feature-created/duplicate': 1,
      'unknown/stored': 1,
      'unknown/dead_lettered': 1,
      'feature-updated/dead_lettered': 1,
    });
  });
});

describe('ProjectorMetrics', () => {
  it('exposes the lag of every known partition with the conventional labels', async () => {
    const registry = new MetricsRegistry('projector');
    const m = new ProjectorMetrics(registry);
    const p = new PartitionProgress();
    p.observeHigh(0, 10, 0);
    p.observeStored(0, 4, null, 0);
    m.publishProgress('g', 't', p, 0);
    const text = await registry.render();
    const line = text.split('\n').find((l) => l.startsWith('flaglens_projector_consumer_lag_messages{'))!;
    for (const label of ['app="projector"', 'consumergroup="g"', 'topic="t"', 'partition="0"'])
      expect(line).toContain(label);
    expect(line.endsWith(' 6')).toBe(true);
    expect(registry.registry).toBeInstanceOf(Registry);
  });

  it('counts stored events of unknown types by type, a bounded number of type labels, duplicates not', async () => {
    const registry = new MetricsRegistry('projector');
    const m = new ProjectorMetrics(registry);
    const batch = (stored: ReturnType<typeof ev>[], accepted = stored) => ({
      accepted,
      stored,
      dead: [],
      seconds: 0.01,
      size: accepted.length,
    });
    m.recordBatch(
      batch([ev(1, 'flag-teleported', false), ev(2, 'flag-teleported', false), ev(3, 'feature-created')]),
    );
    m.recordBatch(batch([], [ev(1, 'flag-teleported', false)])); // a duplicate: not stored again
    // many more types than labels: the later ones as `other`
    m.recordBatch(batch(Array.from({ length: 150 }, (_, i) => ev(10 + i, `new-type-${i}`, false))));
    const lines = (await registry.render())
      .split('\n')
      .filter((l) => l.startsWith('flaglens_projector_unknown_event_types_total{'));
    expect(lines.find((l) => l.includes('type="flag-teleported"'))).toMatch(/ 2$/);
    expect(lines.some((l) => l.includes('type="feature-created"'))).toBe(false);
    expect(lines).toHaveLength(101);
    expect(lines.find((l) => l.includes('type="other"'))).toMatch(/ 51$/);
  });
});

describe('bearerMatches', () => {
  it('accepts only `Bearer <token>`', () => {
    expect(bearerMatches('Bearer secret-token-123456', 'secret-token-123456')).toBe(true);
    expect(bearerMatches('bearer secret-token-123456', 'secret-token-123456')).toBe(true);
    expect(bearerMatches('secret-token-123456', 'secret-token-123456')).toBe(false);
    expect(bearerMatches('Bearer secret-token-12345', 'secret-token-123456')).toBe(false);
    expect(bearerMatches(undefined, 'secret-token-123456')).toBe(false);
  });
});

describe('routeOf', () => {
  it('is the route pattern, never the raw path', () => {
    expect(routeOf({ routeOptions: { url: '/api/admin/events/:featureName' } })).toBe(
      '/api/admin/events/:featureName',
    );
    expect(routeOf({ routeOptions: {} })).toBe('unmatched'); // Fastify's not-found handler
    expect(routeOf({})).toBe('unmatched');
    expect(routeOf({ routeOptions: { url: '*' } })).toBe('unmatched');
  });
});
