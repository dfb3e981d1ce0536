import { parseEvent, type FlagEvent } from '@flaglens/contract';
import {
  HOT_FLAGS,
  largeInstallation,
  largeInstallationSummary,
  type LargeInstallationOptions,
  type LargeInstallationSummary,
} from '@flaglens/testing/large-installation';

/** Every event of a history, and the summary the generator returned at its end. */
function generate(o: LargeInstallationOptions): { events: FlagEvent[]; summary: LargeInstallationSummary } {
  const gen = largeInstallation(o);
  const events: FlagEvent[] = [];
  for (let next = gen.next(); ; next = gen.next()) {
    if (next.done) return { events, summary: next.value };
    events.push(...next.value);
  }
}

describe('a large installation', () => {
  const small = { seed: 3, events: 6000, projects: 12, flags: 300, users: 80, years: 1 };

  it('is the same history for the same seed, another for another seed, in chunks as asked', () => {
    const a = generate(small).events;
    expect(generate(small).events).toEqual(a);
    expect(generate({ ...small, seed: 4 }).events).not.toEqual(a);
    const sizes = [...largeInstallation({ ...small, chunk: 1000 })].map((c) => c.length);
    expect(sizes).toEqual([1000, 1000, 1000, 1000, 1000, 1000]);
  });

  describe('at 50,000 events with the defaults', () => {
    const o = { seed: 1, events: 50_000 };
    const { events, summary } = generate(o);

    it('has the events, projects, flags, users and hot flags asked for, as the summary says without generating', () => {
      expect(summary).toEqual(largeInstallationSummary(o));
      expect(summary).toMatchObject({ events: 50_000, projects: 200, flags: 5000, users: 2000 });
      expect(events).toHaveLength(50_000);
      const created = (type: string) => events.filter((e) => e.type === type);
      // `default` is there before the first event
      expect(new Set(created('project-created').map((e) => e.project)).size).toBe(199);
      expect(new Set(created('feature-created').map((e) => e.featureName)).size).toBe(5000);
      expect(new Set(created('user-created').map((e) => (e.data as { id: number }).id)).size).toBe(2000);
      expect(created('group-created')).toHaveLength(summary.groups);
      // the hot flags: exactly their share of events each (255 = 0.51% of 50,000), more than any other flag
      expect(summary.hotFlags).toHaveLength(HOT_FLAGS);
      const perFlag = new Map<string, number>();
      for (const e of events)
        if (e.featureName) perFlag.set(e.featureName, (perFlag.get(e.featureName) ?? 0) + 1);
      for (const h of summary.hotFlags) {
        expect(h.events).toBe(255);
        expect(perFlag.get(h.name)).toBe(h.events);
      }
      const hot = new Set(summary.hotFlags.map((h) => h.name));
      expect(Math.max(...[...perFlag].filter(([name]) => !hot.has(name)).map(([, n]) => n))).toBeLessThan(
        255,
      );
    });

    it('is made of valid events of every kind flaglens projects, ids increasing with time, within the span', () => {
      // checked in loops, the failures collected: an expect per event would be most of the test's time
      const invalid = events.filter((e) => {
        const parsed = parseEvent(JSON.stringify(e));
        return !parsed.ok || !parsed.knownType;
      });
      expect(invalid).toEqual([]);
      const outOfOrder = events.filter(
        (e, i) => i > 0 && (e.id !== events[i - 1].id + 1 || e.createdAt < events[i - 1].createdAt),
      );
      expect(outOfOrder).toEqual([]);
      expect(events[0].createdAt >= summary.from).toBe(true);
      expect(events[events.length - 1].createdAt <= summary.to).toBe(true);
      expect(Date.parse(summary.to) - Date.parse(summary.from)).toBe(3 * 365.25 * 86_400_000);
      const types = new Set(events.map((e) => e.type));
      for (const t of [
        'project-created',
        'feature-created',
        'user-created',
        'user-updated',
        'group-created',
        'group-user-added',
        'project-user-added',
        'project-user-removed',
        'project-user-role-changed',
        'project-group-added',
        'client-metrics',
        'client-register',
        'feature-archived',
        'feature-revived',
        'feature-deleted',
        'feature-project-change',
        'feature-stale-on',
        'feature-tagged',
        'feature-strategy-add',
        'feature-strategy-update',
        'project-favorited',
        'feature-favorited',
      ])
        expect(types).toContain(t);
      // a flag is deleted only once archived, changed only while live, and nothing names it after its deletion
      const state = new Map<string, string>();
      const wrong: string[] = [];
      for (const e of events) {
        if (!e.featureName || e.type === 'client-metrics') continue;
        const was = state.get(e.featureName);
        const expected =
          e.type === 'feature-created'
            ? undefined
            : e.type === 'feature-revived' || e.type === 'feature-deleted'
              ? 'archived'
              : 'live';
        if (was !== expected) wrong.push(`${e.id} ${e.type} of ${e.featureName}, ${was ?? 'not created'}`);
        if (e.type === 'feature-archived') state.set(e.featureName, 'archived');
        else if (e.type === 'feature-deleted') state.set(e.featureName, 'deleted');
        else state.set(e.featureName, 'live');
      }
      expect(wrong).toEqual([]);
    });
  });

  it('deletes about a tenth of its users however long the history, not nearly all of a long one', () => {
    // 24 users, 60,000 events: a long history for so few users (as 2,000 users are for 10 million events)
    const { events } = generate({ seed: 7, events: 60_000, projects: 12, flags: 300, users: 24, years: 1 });
    const deleted = new Set(
      events.filter((e) => e.type === 'user-deleted').map((e) => (e.preData as { id: number }).id),
    );
    expect(events.filter((e) => e.type === 'user-deleted')).toHaveLength(deleted.size);
    expect(deleted.size).toBeGreaterThanOrEqual(1);
    expect(deleted.size).toBeLessThanOrEqual(6);
    // nothing names a deleted user afterwards as the author of a change or a member
    const gone = new Set<number>();
    const after: string[] = [];
    for (const e of events) {
      if (e.type === 'user-deleted') gone.add((e.preData as { id: number }).id);
      else if (e.createdByUserId !== null && gone.has(e.createdByUserId)) after.push(`${e.id} ${e.type}`);
    }
    expect(after).toEqual([]);
  });

  it('refuses a history too short for what it must create', () => {
    expect(() => largeInstallationSummary({ seed: 1, events: 1000 })).toThrow(/too few/);
    expect(() => [...largeInstallation({ ...small, events: 100 })]).toThrow(/too few/);
  });
});
