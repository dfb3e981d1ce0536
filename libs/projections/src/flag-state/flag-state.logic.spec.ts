import { generateHistory, prng } from '@flaglens/testing/generate-history';
import { testEvent as ev } from '@flaglens/testing/test-events';
import { reduceFlagState, type FlagRow } from './flag-state.logic';

const run = (events: ReturnType<typeof ev>[], start = new Map<string, FlagRow>()) => {
  const { rows, skipped } = reduceFlagState(start, events);
  const state = new Map(start);
  for (const r of rows) state.set(r.name, r);
  return { state, skipped };
};

describe('flag state update logic', () => {
  const created = ev(1, 'feature-created', { project: 'p', featureName: 'f', data: { type: 'experiment' } });

  it('feature-created: project, type, not stale, created at the event time', () => {
    expect(run([created]).state.get('f')).toEqual({
      name: 'f',
      project: 'p',
      type: 'experiment',
      stale: false,
      createdAt: created.createdAt,
      archivedAt: null,
      deleted: false,
    });
  });

  it.each([
    ['feature-stale-on', {}, { stale: true }],
    [
      'feature-metadata-updated',
      { data: { type: 'release', stale: true } },
      { type: 'release', stale: true },
    ],
    [
      'feature-project-change',
      { project: 'q', data: { newProject: 'q', oldProject: 'p' } },
      { project: 'q' },
    ],
    ['feature-archived', {}, { archivedAt: '2026-01-01T00:00:02.000Z' }],
    ['feature-deleted', {}, { deleted: true }],
  ])('%s', (type, extra, expected) => {
    const f = run([created, ev(2, type, { project: 'p', featureName: 'f', ...extra })]).state.get('f');
    expect(f).toMatchObject(expected);
  });

  it('revive and stale-off undo archive and stale; a recreated flag starts afresh', () => {
    const s = run([
      created,
      ev(2, 'feature-stale-on', { featureName: 'f' }),
      ev(3, 'feature-stale-off', { featureName: 'f' }),
      ev(4, 'feature-archived', { featureName: 'f' }),
      ev(5, 'feature-revived', { featureName: 'f' }),
    ]).state.get('f');
    expect(s).toMatchObject({ stale: false, archivedAt: null });
    const again = run([
      created,
      ev(2, 'feature-deleted', { featureName: 'f' }),
      ev(3, 'feature-created', { project: 'r', featureName: 'f', data: {} }),
    ]).state.get('f');
    expect(again).toMatchObject({
      project: 'r',
      type: 'release',
      deleted: false,
      createdAt: ev(3, 'x').createdAt,
    });
  });

  it('fallbacks: wrong-typed fields are ignored; a move to an unknown project is applied', () => {
    const s = run([
      created,
      ev(2, 'feature-metadata-updated', { featureName: 'f', data: { type: 42, stale: 'yes' } }),
      ev(3, 'feature-project-change', {
        featureName: 'f',
        project: 'never-created',
        data: { newProject: 7 },
      }),
    ]);
    expect(s.state.get('f')).toMatchObject({ type: 'experiment', stale: false, project: 'never-created' });
    expect(s.skipped).toEqual([]);
  });

  it('skips (and names) events of flags never created, and creations without a project', () => {
    const s = run([
      ev(1, 'feature-archived', { featureName: 'ghost' }),
      ev(2, 'feature-created', { featureName: 'np' }),
      ev(3, 'feature-project-change', { featureName: 'np', data: {} }),
    ]);
    expect(s.skipped).toEqual([
      { eventId: 1, reason: 'flag never created' },
      { eventId: 2, reason: 'feature-created without a project' },
      { eventId: 3, reason: 'flag never created' },
    ]);
    expect(s.state.size).toBe(0);
  });

  it('same final state in one batch, in many batches, replayed, and across key interleavings', () => {
    const history = generateHistory({
      seed: 3,
      projects: 3,
      flagsPerProject: 30,
      events: 2000,
      weeks: 8,
      end: '2026-06-01T00:00:00Z',
    });
    const once = run(history).state;
    // batches of every size, state threaded through
    const rnd = prng(11);
    let state = new Map<string, FlagRow>();
    const byKey = new Map<string, typeof history>();
    for (const e of history) {
      const k = e.featureName ?? e.project ?? 'instance';
      byKey.set(k, [...(byKey.get(k) ?? []), e]);
    }
    const queues = [...byKey.values()];
    const order: typeof history = [];
    while (queues.length) {
      const i = Math.floor(rnd() * queues.length);
      order.push(queues[i].shift()!);
      if (!queues[i].length) queues.splice(i, 1);
    }
    for (let i = 0; i < order.length; i += 37) state = run(order.slice(i, i + 37), state).state;
    expect(state).toEqual(once);
  });
});
