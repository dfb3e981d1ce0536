import fc from 'fast-check';
import { testEvent } from '@flaglens/testing/test-events';
import { activityRows, dailyCounts } from './project-activity.logic';

describe('dailyCounts', () => {
  it('counts the activity rows per project and UTC day, whatever the order of the events', () => {
    const event = fc
      .record({
        id: fc.integer({ min: 1, max: 10_000 }),
        project: fc.constantFrom(null, '', 'default', 'p2', 'é'),
        // instants around midnight UTC, so neighbours fall on both sides of a day's edge
        at: fc.integer({ min: Date.UTC(2026, 0, 1) - 3_000, max: Date.UTC(2026, 0, 3) + 3_000 }),
      })
      .map(({ id, project, at }) =>
        testEvent(id, 'feature-updated', { project, createdAt: new Date(at).toISOString() }),
      );
    fc.assert(
      fc.property(fc.array(event, { maxLength: 60 }), (events) => {
        const expected = new Map<string, number>();
        for (const r of activityRows(events)) {
          const key = `${r.project}|${new Date(r.createdAt).toISOString().slice(0, 10)}`;
          expected.set(key, (expected.get(key) ?? 0) + 1);
        }
        const counted = (list: typeof events) =>
          new Map(dailyCounts(list).map((c) => [`${c.project}|${c.day}`, c.n]));
        expect(counted(events)).toEqual(expected);
        expect(counted([...events].reverse())).toEqual(expected);
      }),
    );
  });
});
