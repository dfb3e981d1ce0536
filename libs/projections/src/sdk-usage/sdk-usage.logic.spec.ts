import { activityRows } from '../project-activity/project-activity.logic';
import { testEvent as ev } from '@flaglens/testing/test-events';
import {
  averageTimeToProduction,
  enableRows,
  wholeDaysBetween,
} from '../time-to-production/time-to-production.logic';
import { sdkUsage } from './sdk-usage.logic';

describe('sdk usage, activity and time-to-production logic', () => {
  it('client-metrics marks every reported flag; client-register with a project marks the project', () => {
    const m = ev(2, 'client-metrics', {
      data: { appName: 'a', bucket: { toggles: { f: { yes: 1, no: 0 }, g: {} } } },
    });
    const r = ev(1, 'client-register', { project: 'p', data: { appName: 'a' } });
    const bad = ev(3, 'client-metrics', { data: { appName: 'a', bucket: { toggles: [] } } });
    const out = sdkUsage([m, r, bad]);
    expect([...out.flags.keys()]).toEqual(['f', 'g']);
    expect(out.projects.get('p')).toEqual({ first: r.createdAt, last: r.createdAt });
    expect(out.skipped).toEqual([{ eventId: 3, reason: 'client-metrics without data.bucket.toggles' }]);
    // order-independent
    expect(sdkUsage([r, m]).flags).toEqual(sdkUsage([m, r]).flags);
  });

  it('client-register naming a project in data.project marks it (the source connector carries client_applications_usage so)', () => {
    const r = ev(1, 'client-register', { data: { appName: 'a', environment: 'development', project: 'q' } });
    expect([...sdkUsage([r]).projects.keys()]).toEqual(['q']);
    // a metrics report's data.project is not an onboarding signal (flags named in toggles are)
    const m = ev(2, 'client-metrics', { data: { appName: 'a', project: 'x', bucket: { toggles: {} } } });
    expect(sdkUsage([m]).projects.size).toBe(0);
  });

  it('activity: one row per event with a project, any type', () => {
    expect(
      activityRows([
        ev(1, 'project-favorited', { project: 'p' }),
        ev(2, 'feature-favorited', { featureName: 'f' }),
      ]),
    ).toEqual([{ project: 'p', createdAt: ev(1, 'x').createdAt, eventId: 1 }]);
  });

  it('time to production: every enable kept; whole days truncated; mean to one decimal, 0 → 0.1, none → 0', () => {
    expect(
      enableRows([ev(1, 'feature-environment-enabled', { featureName: 'f', environment: 'production' })]),
    ).toHaveLength(1);
    expect(enableRows([ev(1, 'feature-environment-enabled', { featureName: 'f' })])).toHaveLength(0);
    expect(wholeDaysBetween('2026-01-01T00:00:00Z', '2026-01-02T23:59:59.999Z')).toBe(1);
    expect(averageTimeToProduction([])).toBe(0);
    expect(averageTimeToProduction([0, 0])).toBe(0.1);
    expect(averageTimeToProduction([1, 2, 2])).toBe(1.7);
  });
});
