import { reduceFlagState, type FlagRow, type FlagTransition } from '../flag-state/flag-state.logic';
import { testEvent as ev } from '@flaglens/testing/test-events';
import fc from 'fast-check';
import {
  earliestInvalidated,
  insightsChanges,
  isoWeekId,
  reattributedFlags,
  weekStart,
} from './insights.logic';
import { utcDay, utcDays } from '../time';

describe('insights pure logic', () => {
  it('utcDay cuts a UTC normal form and converts any other form; weekStart is the Monday, however often asked', () => {
    const instant = fc.date({
      min: new Date('1000-01-02T00:00:00Z'),
      max: new Date('2999-12-30T00:00:00Z'),
      noInvalidDate: true,
    });
    fc.assert(
      fc.property(instant, (d) => {
        const iso = d.toISOString();
        expect(utcDay(iso)).toBe(iso.slice(0, 10));
        expect(utcDay(iso.replace(/\.\d{3}Z$/, '+02:00'))).toBe(
          new Date(iso.replace(/\.\d{3}Z$/, '+02:00')).toISOString().slice(0, 10),
        );
        const day = iso.slice(0, 10);
        const monday = weekStart(day);
        expect(weekStart(day)).toBe(monday);
        expect(new Date(`${monday}T00:00:00Z`).getUTCDay()).toBe(1);
        const gap = (Date.parse(`${day}T00:00:00Z`) - Date.parse(`${monday}T00:00:00Z`)) / 86_400_000;
        expect(gap >= 0 && gap < 7).toBe(true);
      }),
    );
  });

  it('utcDays gives what utcDay gives, for any run of instants in any form', () => {
    // a few days, so that runs of the same day are common
    const form = fc.tuple(
      fc
        .tuple(fc.constantFrom('2026-03-29', '2026-03-30', '1999-12-31'), fc.nat(86_399_999))
        .map(([day, ms]) => new Date(Date.parse(`${day}T00:00:00Z`) + ms)),
      fc.constantFrom('Z', '+02:00', '-11:30'),
    );
    fc.assert(
      fc.property(fc.array(form, { maxLength: 30 }), (instants) => {
        const day = utcDays();
        for (const [d, zone] of instants) {
          const iso = zone === 'Z' ? d.toISOString() : d.toISOString().replace(/\.\d{3}Z$/, zone);
          expect(day(iso)).toBe(utcDay(iso));
        }
      }),
    );
  });

  it('ISO week-years: the week of Monday 2024-12-30 is 2025-01; 2025-12-29 and 2026-01-01 are 2026-01', () => {
    expect(isoWeekId('2024-12-30')).toBe('2025-01');
    expect(isoWeekId('2025-01-05')).toBe('2025-01');
    expect(isoWeekId('2025-12-29')).toBe('2026-01');
    expect(isoWeekId('2026-01-01')).toBe('2026-01');
    expect(isoWeekId('2024-01-01')).toBe('2024-01');
    expect(isoWeekId('2020-12-31')).toBe('2020-53');
    expect(weekStart('2026-01-04')).toBe('2025-12-29');
  });

  it('books the difference of a flag`s contribution before and after each of its events', () => {
    const events = [
      ev(1, 'feature-created', { project: 'p', featureName: 'f', data: { type: 'release' } }),
      ev(2, 'feature-stale-on', { featureName: 'f' }),
      ev(3, 'feature-project-change', { featureName: 'f', project: 'q', data: { newProject: 'q' } }),
      ev(4, 'feature-archived', { featureName: 'f' }),
    ];
    const { transitions } = reduceFlagState(new Map(), events);
    const c = insightsChanges(transitions, events);
    const sum = (project: string) =>
      c.flagDeltas
        .filter((d) => d.project === project)
        .reduce((a, d) => [a[0] + d.total, a[1] + d.stale, a[2] + d.fresh], [0, 0, 0]);
    expect(sum('p')).toEqual([0, 0, 0]);
    expect(sum('q')).toEqual([0, 0, 0]);
    expect(transitions.at(-1)!.after).toMatchObject({ name: 'f', project: 'q', stale: true });
  });

  it('keeps apart flags whose project and type differ only in where a separator falls', () => {
    const events = [
      ev(1, 'feature-created', { project: 'a|b', featureName: 'f', data: { type: 'c' } }),
      ev(2, 'feature-created', { project: 'a', featureName: 'g', data: { type: 'b|c' } }),
    ];
    const { transitions } = reduceFlagState(new Map(), events);
    const c = insightsChanges(transitions, events);
    expect(c.flagDeltas.map((d) => [d.project, d.type, d.total]).sort()).toEqual([
      ['a', 'b|c', 1],
      ['a|b', 'c', 1],
    ]);
  });

  it('counts environment updates and metrics per distinct names, whatever characters they hold', () => {
    const name = fc.string({ unit: fc.constantFrom('a', '1', ':', '|', '"', ','), maxLength: 4 });
    const report = fc.record({
      day: fc.constantFrom('2026-06-01', '2026-06-02'),
      environment: name,
      project: fc.option(name, { nil: null }),
      app: name,
      feature: name,
    });
    fc.assert(
      fc.property(fc.array(report, { maxLength: 12 }), (reports) => {
        const events = reports.map((r, i) =>
          ev(i + 1, 'client-metrics', {
            createdAt: `${r.day}T10:00:00.000Z`,
            environment: r.environment === '' ? null : r.environment,
            project: r.project,
            data: {
              appName: r.app,
              bucket: { start: 0, stop: 1, toggles: { [r.feature]: { yes: 1, no: 0 } } },
            },
          }),
        );
        const c = insightsChanges([], events);
        const tally = (keys: string[]) => {
          const m = new Map<string, number>();
          for (const k of keys) m.set(k, (m.get(k) ?? 0) + 1);
          return [...m].sort();
        };
        const withEnv = reports.filter((r) => r.environment !== '');
        expect(tally(withEnv.map((r) => JSON.stringify([r.day, r.environment, r.project ?? ''])))).toEqual(
          c.envUpdates.map((u) => [JSON.stringify([u.day, u.environment, u.project]), u.n]).sort(),
        );
        expect(
          tally(
            reports.map((r) => JSON.stringify([r.day, r.project ?? '', r.feature, r.app, r.environment])),
          ),
        ).toEqual(
          c.metrics
            .map((m) => [JSON.stringify([m.day, m.projectHint, m.feature, m.app, m.environment]), m.yes])
            .sort(),
        );
      }),
    );
  });

  it('users: system ids ignored, deletion by preData.id; authors per week', () => {
    const c = insightsChanges(
      [],
      [
        ev(1, 'user-created', { data: { id: 5 } }),
        ev(2, 'user-created', { data: { id: -42 } }),
        ev(3, 'user-deleted', { preData: { id: 5 }, createdByUserId: 5 }),
      ],
    );
    expect(c.users).toEqual([{ id: 5, createdAt: ev(1, 'x').createdAt, deletedAt: ev(3, 'x').createdAt }]);
    expect(c.userWeeks.map((w) => w.userId).sort()).toEqual([1, 5]);
  });

  it('metrics: a toggle with yes = no = 0 counts nothing (as in the reference, which drops it)', () => {
    const c = insightsChanges(
      [],
      [
        ev(1, 'client-metrics', {
          data: {
            appName: 'a',
            environment: 'production',
            bucket: { start: 0, stop: 1, toggles: { f: { yes: 0, no: 0 }, g: { yes: 2, no: 1 } } },
          },
        }),
      ],
    );
    expect(c.metrics.map((m) => [m.feature, m.app, m.environment, m.yes, m.no])).toEqual([
      ['g', 'a', 'production', 2, 1],
    ]);
  });
});

describe('earliestInvalidated (the stored weeks a batch may change)', () => {
  it('the earliest UTC day of the events and transitions; -infinity for a feature-type change; null when empty', () => {
    const e = (id: number, at: string, type = 'tag-created') => ev(id, type, { createdAt: at });
    expect(earliestInvalidated([], [])).toBeNull();
    expect(
      earliestInvalidated([], [e(1, '2026-06-03T10:00:00.000Z'), e(2, '2026-05-31T23:59:59.999+00:00')]),
    ).toBe('2026-05-31');
    expect(
      earliestInvalidated(
        [
          {
            eventId: 3,
            at: '2026-01-01T00:00:00.000Z',
            name: 'f',
            before: null,
          } as unknown as FlagTransition,
        ],
        [e(3, '2026-06-03T10:00:00.000Z')],
      ),
    ).toBe('2026-01-01');
    expect(
      earliestInvalidated(
        [],
        [e(4, '2026-06-03T10:00:00.000Z'), e(5, '2026-06-03T10:00:00.000Z', 'feature-type-updated')],
      ),
    ).toBe('-infinity');
  });
});

describe('reattributedFlags (the flags whose SDK metrics change project)', () => {
  const row = (name: string, project: string, deleted = false): FlagRow => ({
    name,
    project,
    type: 'release',
    stale: false,
    createdAt: '2026-01-01T00:00:00.000Z',
    archivedAt: null,
    deleted,
  });
  const t = (name: string, before: FlagRow | null, after: FlagRow) =>
    ({ eventId: 1, at: '2026-06-01T00:00:00.000Z', name, before, after }) as FlagTransition;

  it('a move, a deletion, a creation and a revival change it; a stale mark or an archive does not', () => {
    expect(
      reattributedFlags([
        t('moved', row('moved', 'a'), row('moved', 'b')),
        t('deleted', row('deleted', 'a'), row('deleted', 'a', true)),
        t('created', null, row('created', 'a')),
        t('revived', row('revived', 'a', true), row('revived', 'a')),
        t('stale', row('stale', 'a'), { ...row('stale', 'a'), stale: true }),
        t('archived', row('archived', 'a'), {
          ...row('archived', 'a'),
          archivedAt: '2026-06-01T00:00:00.000Z',
        }),
        t('gone', row('gone', 'a', true), row('gone', 'b', true)),
        t('moved', row('moved', 'b'), row('moved', 'c')),
      ]),
    ).toEqual(['moved', 'deleted', 'created', 'revived']);
    expect(reattributedFlags([])).toEqual([]);
  });
});
