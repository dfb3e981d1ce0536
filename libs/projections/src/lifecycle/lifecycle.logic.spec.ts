import type { FlagEvent } from '@flaglens/contract';
import { testEvent } from '@flaglens/testing/test-events';
import {
  categoryOf,
  currentStage,
  daysFigure,
  lifecycleSummary,
  median,
  mergeSpans,
  mergeSightings,
  reduceLifecycleFlags,
  sightingsOf,
  stagesOf,
  type ClosedSpan,
  type LifecycleFlagRow,
  type Sighting,
  type SummaryFlag,
} from './lifecycle.logic';

const at = (iso: string) => new Date(iso).toISOString();
const ev = (id: number, type: string, when: string, o: Partial<FlagEvent> = {}): FlagEvent =>
  testEvent(id, type, { featureName: 'f', project: 'p', createdAt: at(when), ...o });
const metrics = (id: number, env: string, start: string, stop: string, flags: string[]): FlagEvent =>
  testEvent(id, 'client-metrics', {
    createdAt: at(start),
    data: {
      appName: 'a',
      environment: env,
      bucket: { start, stop, toggles: Object.fromEntries(flags.map((f) => [f, { yes: 0, no: 0 }])) },
    },
  });
const ENVS = new Map([
  ['development', 'development'],
  ['production', 'production'],
]);

/**
 * Flag `f` after `events`, each applied as a batch of its own, as the projection stores it: the row, its closed
 * spans kept beside it (emptied by a reset); the row returned with every span, the closed ones first.
 */
const fold = (events: FlagEvent[]): LifecycleFlagRow => {
  const m = new Map<string, LifecycleFlagRow>();
  let closed: ClosedSpan[] = [];
  for (const e of events) {
    const r = reduceLifecycleFlags(m, [e]);
    closed = [...closed.filter((c) => !r.reset.includes(c.name)), ...r.closed];
    for (const row of r.rows) m.set(row.name, row);
  }
  const row = m.get('f')!;
  return {
    ...row,
    enables: [...closed.map(({ environment, from, to }) => ({ environment, from, to })), ...row.enables],
  };
};
const stages = (flag: LifecycleFlagRow, seen: Sighting[]) =>
  stagesOf(flag, seen, ENVS).map((s) => [s.stage, s.enteredAt]);

describe('lifecycle logic (Unleash 8.2.0 feature-lifecycle-service rules)', () => {
  const created = ev(1, 'feature-created', '2026-01-01T10:00:00Z');

  it('created: initial; a report in a known environment: pre-live; in production while enabled: live', () => {
    const flag = fold([
      created,
      ev(2, 'feature-environment-enabled', '2026-01-03T00:00:00Z', { environment: 'production' }),
    ]);
    const seen = [
      ...sightingsOf([
        metrics(3, 'development', '2026-01-02T00:00:00Z', '2026-01-02T01:00:00Z', ['f']),
        metrics(4, 'production', '2026-01-02T12:00:00Z', '2026-01-05T00:00:00Z', ['f']),
      ]).values(),
    ];
    expect(stages(flag, seen)).toEqual([
      ['initial', '2026-01-01T10:00:00.000Z'],
      ['pre-live', '2026-01-02T00:00:00.000Z'],
      ['live', '2026-01-03T00:00:00.000Z'],
    ]);
    expect(currentStage(stagesOf(flag, seen, ENVS)).stage).toBe('live');
  });

  it('no live while disabled, in a non-production environment, or in an unknown (deleted) environment', () => {
    const flag = fold([
      created,
      ev(2, 'feature-environment-enabled', '2026-01-02T00:00:00Z', { environment: 'production' }),
      ev(3, 'feature-environment-disabled', '2026-01-03T00:00:00Z', { environment: 'production' }),
      ev(4, 'feature-environment-enabled', '2026-01-02T00:00:00Z', { environment: 'development' }),
    ]);
    expect(flag.enables).toEqual([
      { environment: 'production', from: '2026-01-02T00:00:00.000Z', to: '2026-01-03T00:00:00.000Z' },
      { environment: 'development', from: '2026-01-02T00:00:00.000Z', to: null },
    ]);
    const seenAfter = [
      ...sightingsOf([
        metrics(5, 'production', '2026-01-04T00:00:00Z', '2026-01-04T01:00:00Z', ['f']),
        metrics(6, 'development', '2026-01-05T00:00:00Z', '2026-01-05T01:00:00Z', ['f']),
        metrics(7, 'gone', '2026-01-01T11:00:00Z', '2026-01-01T12:00:00Z', ['f']),
      ]).values(),
    ];
    expect(stages(flag, seenAfter)).toEqual([
      ['initial', '2026-01-01T10:00:00.000Z'],
      ['pre-live', '2026-01-04T00:00:00.000Z'],
    ]);
    // a report whose bucket reaches into the enabled span counts from the enable
    const seenDuring = [
      ...sightingsOf([
        metrics(8, 'production', '2026-01-01T23:00:00Z', '2026-01-02T00:30:00Z', ['f']),
      ]).values(),
    ];
    expect(stages(flag, seenDuring).at(-1)).toEqual(['live', '2026-01-02T00:00:00.000Z']);
  });

  it('a disable moves the span out of the row; a span of no length is left out; a new flag starts without spans', () => {
    const r = reduceLifecycleFlags(new Map(), [
      created,
      ev(2, 'feature-environment-enabled', '2026-01-02T00:00:00Z', { environment: 'production' }),
      ev(3, 'feature-environment-disabled', '2026-01-03T00:00:00Z', { environment: 'production' }),
      ev(4, 'feature-environment-enabled', '2026-01-04T00:00:00Z', { environment: 'production' }),
      ev(5, 'feature-environment-disabled', '2026-01-04T00:00:00Z', { environment: 'production' }),
      ev(6, 'feature-environment-enabled', '2026-01-05T00:00:00Z', { environment: 'development' }),
    ]);
    expect(r.rows.map((row) => row.enables)).toEqual([
      [{ environment: 'development', from: '2026-01-05T00:00:00.000Z', to: null }],
    ]);
    expect(r.closed).toEqual([
      {
        name: 'f',
        environment: 'production',
        from: '2026-01-02T00:00:00.000Z',
        to: '2026-01-03T00:00:00.000Z',
      },
    ]);
    expect(r.reset).toEqual(['f']);
    // deleted and created again: the spans closed before are no longer the flag's
    const again = reduceLifecycleFlags(new Map([['f', r.rows[0]]]), [
      ev(7, 'feature-environment-disabled', '2026-01-06T00:00:00Z', { environment: 'development' }),
      ev(8, 'feature-deleted', '2026-01-07T00:00:00Z'),
      ev(9, 'feature-created', '2026-01-08T00:00:00Z'),
    ]);
    expect(again.closed).toEqual([]);
    expect(again.reset).toEqual(['f']);
    expect(again.rows[0]).toMatchObject({
      startedAt: '2026-01-08T00:00:00.000Z',
      enables: [],
      deleted: false,
    });
    // a span closed in a later batch than the one that opened it
    const later = reduceLifecycleFlags(new Map([['f', r.rows[0]]]), [
      ev(10, 'feature-environment-disabled', '2026-01-06T00:00:00Z', { environment: 'development' }),
    ]);
    expect(later).toEqual({
      rows: [{ ...r.rows[0], enables: [] }],
      closed: [
        {
          name: 'f',
          environment: 'development',
          from: '2026-01-05T00:00:00.000Z',
          to: '2026-01-06T00:00:00.000Z',
        },
      ],
      reset: [],
    });
  });

  it('a report from before the flag started does not count; one whose bucket reaches its start does', () => {
    const flag = fold([created]);
    const before = [
      ...sightingsOf([
        metrics(2, 'development', '2025-12-31T00:00:00Z', '2025-12-31T01:00:00Z', ['f']),
      ]).values(),
    ];
    expect(stages(flag, before)).toEqual([['initial', '2026-01-01T10:00:00.000Z']]);
    const reaching = [
      ...sightingsOf([
        metrics(3, 'development', '2026-01-01T09:00:00Z', '2026-01-01T10:00:00Z', ['f']),
      ]).values(),
    ];
    expect(stages(flag, reaching).at(-1)).toEqual(['pre-live', '2026-01-01T10:00:00.000Z']);
  });

  it('completed once (first time and status kept), uncompleted removes it, archived; revived starts afresh', () => {
    const base = [
      created,
      ev(2, 'feature-completed', '2026-01-02T00:00:00Z', { data: { status: 'kept', kept: true } }),
      ev(3, 'feature-completed', '2026-01-03T00:00:00Z', { data: { status: 'discarded', kept: false } }),
    ];
    expect(fold(base)).toMatchObject({ completedAt: '2026-01-02T00:00:00.000Z', completedStatus: 'kept' });
    expect(fold([...base, ev(4, 'feature-uncompleted', '2026-01-04T00:00:00Z')])).toMatchObject({
      completedAt: null,
      completedStatus: null,
    });
    const archived = fold([...base, ev(5, 'feature-archived', '2026-01-05T00:00:00Z')]);
    expect(stages(archived, []).map(([s]) => s)).toEqual(['initial', 'completed', 'archived']);
    const revived = fold([
      ...base,
      ev(5, 'feature-archived', '2026-01-05T00:00:00Z'),
      ev(6, 'feature-revived', '2026-01-06T00:00:00Z'),
    ]);
    expect(stages(revived, [])).toEqual([['initial', '2026-01-06T00:00:00.000Z']]);
  });

  it('events of a flag never created are ignored; deleted then created again starts a new row', () => {
    expect(reduceLifecycleFlags(new Map(), [ev(1, 'feature-archived', '2026-01-01T00:00:00Z')]).rows).toEqual(
      [],
    );
    const again = fold([
      created,
      ev(2, 'feature-archived', '2026-01-02T00:00:00Z'),
      ev(3, 'feature-deleted', '2026-01-03T00:00:00Z'),
      ev(4, 'feature-completed', '2026-01-03T01:00:00Z'),
      ev(5, 'feature-created', '2026-01-04T00:00:00Z'),
    ]);
    expect(again).toMatchObject({ startedAt: '2026-01-04T00:00:00.000Z', archivedAt: null, deleted: false });
  });

  it('sightings: per flag and environment, earliest first and latest last, in any order', () => {
    const a = metrics(1, 'production', '2026-01-02T00:00:00Z', '2026-01-02T01:00:00Z', ['f', 'g']);
    const b = metrics(2, 'production', '2026-01-01T00:00:00Z', '2026-01-01T01:00:00Z', ['f']);
    const one = sightingsOf([a, b]);
    const split = sightingsOf([b]);
    mergeSightings(split, sightingsOf([a]));
    expect(split).toEqual(one);
    expect(one.get('f\u0000production')).toEqual({
      featureName: 'f',
      environment: 'production',
      first: '2026-01-01T00:00:00.000Z',
      last: '2026-01-02T01:00:00.000Z',
    });
    // no environment: the event's, else `default`; no bucket times: the event's time
    const bare = testEvent(3, 'client-metrics', { data: { bucket: { toggles: { h: {} } } } });
    expect([...sightingsOf([bare]).values()]).toEqual([
      { featureName: 'h', environment: 'default', first: bare.createdAt, last: bare.createdAt },
    ]);
  });

  it('categories, medians and the figures in days', () => {
    expect(
      ['experiment', 'release', 'operational', 'kill-switch', 'permission', 'custom'].map(categoryOf),
    ).toEqual(['experimental', 'release', 'permanent', 'permanent', 'permanent', 'permanent']);
    expect(median([])).toBeNull();
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 2, 3])).toBe(2.5);
    expect(daysFigure(null)).toBe(0);
    expect(daysFigure(1000)).toBe(0.1);
    expect(daysFigure(1.5 * 86_400_000)).toBe(1.5);
  });

  it('the summary: current stage per flag (archived left out), new within 7 days, medians, validUntil', () => {
    const now = new Date('2026-02-01T00:00:00Z');
    const s = (stage: string, when: string) =>
      ({ stage, enteredAt: at(when) }) as SummaryFlag['stages'][number];
    const flags: SummaryFlag[] = [
      // pre-live for 2 days (new), release
      { type: 'release', archived: false, stages: [s('initial', '2026-01-20'), s('pre-live', '2026-01-30')] },
      // pre-live for 11 days (old), experiment
      {
        type: 'experiment',
        archived: false,
        stages: [s('initial', '2026-01-20'), s('pre-live', '2026-01-21')],
      },
      // live for 1 day, kill-switch: pre-live lasted 3 days
      {
        type: 'kill-switch',
        archived: false,
        stages: [s('initial', '2026-01-25'), s('pre-live', '2026-01-27'), s('live', '2026-01-31')],
      },
      // archived: out of the counts, but its time in pre-live (5 days) and completed (1 day) is history
      {
        type: 'release',
        archived: true,
        stages: [
          s('initial', '2026-01-01'),
          s('pre-live', '2026-01-02'),
          s('completed', '2026-01-07'),
          s('archived', '2026-01-08'),
        ],
      },
    ];
    const { body, validUntil } = lifecycleSummary(flags, now);
    expect(body.lifecycleTrends.develop).toEqual({
      categories: {
        experimental: { flagsOlderThanWeek: 1, newFlagsThisWeek: 0 },
        permanent: { flagsOlderThanWeek: 0, newFlagsThisWeek: 0 },
        release: { flagsOlderThanWeek: 0, newFlagsThisWeek: 1 },
      },
      medianDaysHistorically: 4.5, // 4 (kill-switch) and 5 (archived)
      medianDaysInCurrentStage: 6.5, // 2 and 11
      totalFlags: 2,
    });
    expect(body.lifecycleTrends.production).toMatchObject({
      categories: { permanent: { flagsOlderThanWeek: 0, newFlagsThisWeek: 1 } },
      medianDaysHistorically: 0,
      medianDaysInCurrentStage: 1,
      totalFlags: 1,
    });
    expect(body.lifecycleTrends.cleanup).toMatchObject({ medianDaysHistorically: 1, totalFlags: 0 });
    expect(Object.keys(body.lifecycleTrends)).toEqual(['develop', 'production', 'cleanup']);
    // the next change: a median crossing its rounding edge (6.5 → 6.6 at 6.55 days, 1.0 → 1.1 at 1.05 days)
    // comes before any flag leaves its first week (2026-02-06)
    expect(validUntil).toBe(Date.parse('2026-02-01T01:12:00Z') - 1000);
    // the figures are those of any instant before it
    const later = lifecycleSummary(flags, new Date(validUntil! - 1)).body;
    expect(later).toEqual(body);
    expect(lifecycleSummary(flags, new Date(validUntil! + 1001)).body).not.toEqual(body);
  });
});

describe('mergeSpans', () => {
  const span = (from: number, to: number, environment = 'production', name = 'f') => ({
    name,
    environment,
    from: new Date(Date.UTC(2026, 0, 1, from)).toISOString(),
    to: new Date(Date.UTC(2026, 0, 1, to)).toISOString(),
  });

  it('makes overlapping spans of a flag and environment one; touching ones, other environments and flags stay apart', () => {
    expect(
      mergeSpans([
        span(10, 20),
        span(5, 15),
        span(20, 22),
        span(30, 40),
        span(32, 35),
        span(12, 18, 'development'),
        span(11, 13, 'production', 'g'),
      ]),
    ).toEqual([
      span(12, 18, 'development'),
      span(5, 20),
      span(20, 22),
      span(30, 40),
      span(11, 13, 'production', 'g'),
    ]);
  });

  it('gives the same spans in any order, and again for its own result with any of the spans repeated', () => {
    const spans = [span(1, 4), span(3, 6), span(6, 8), span(7, 9), span(12, 13), span(2, 3), span(0, 1)];
    const merged = mergeSpans(spans);
    expect(merged).toEqual([span(0, 1), span(1, 6), span(6, 9), span(12, 13)]);
    for (let k = 0; k < spans.length; k++) {
      const rotated = [...spans.slice(k), ...spans.slice(0, k)];
      for (const order of [rotated, [...rotated].reverse()]) expect(mergeSpans(order)).toEqual(merged);
      expect(mergeSpans([...merged, spans[k]])).toEqual(merged);
    }
  });
});
