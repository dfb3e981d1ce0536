import { parseEvent } from '@flaglens/contract';
import { generateHistory } from '@flaglens/testing/generate-history';

describe('simulated history', () => {
  const opts = {
    seed: 9,
    projects: 3,
    flagsPerProject: 10,
    events: 500,
    weeks: 4,
    end: '2026-11-22T00:00:00Z',
  };

  it('is deterministic from the seed, and another seed gives another history', () => {
    expect(generateHistory(opts)).toEqual(generateHistory(opts));
    expect(generateHistory({ ...opts, seed: 10 })).not.toEqual(generateHistory(opts));
  });

  it('emits valid events of the contract, ids increasing with time, within the weeks asked', () => {
    const events = generateHistory(opts);
    expect(events.length).toBeGreaterThanOrEqual(500);
    for (const e of events) expect(parseEvent(JSON.stringify(e))).toMatchObject({ ok: true });
    for (let i = 1; i < events.length; i++) {
      expect(events[i].id).toBe(events[i - 1].id + 1);
      expect(events[i].createdAt >= events[i - 1].createdAt).toBe(true);
    }
    expect(events[0].createdAt >= '2026-10-25T00:00:00.000Z').toBe(true);
  });

  it('a long history of few flags ends (every flag deleted) instead of spinning', () => {
    const events = generateHistory({ ...opts, flagsPerProject: 2, events: 50_000 });
    expect(events.length).toBeLessThan(50_000);
    expect(events.filter((e) => e.type === 'feature-deleted')).toHaveLength(6);
  });

  it('`rich` adds identity and project-lifecycle events, all valid, and keeps the flag population alive', () => {
    const events = generateHistory({ ...opts, rich: true, projects: 6, flagsPerProject: 2, events: 20_000 });
    expect(events).toHaveLength(20_000);
    for (const e of events) expect(parseEvent(JSON.stringify(e))).toMatchObject({ ok: true });
    const types = new Set(events.map((e) => e.type));
    for (const t of [
      'user-created',
      'user-deleted',
      'group-user-added',
      'project-user-removed',
      'project-group-added',
      'project-access-user-roles-updated',
      'project-archived',
      'project-revived',
      'feature-deleted',
    ])
      expect(types).toContain(t);
    expect(generateHistory({ ...opts, rich: true })).toEqual(generateHistory({ ...opts, rich: true }));
  });
});
