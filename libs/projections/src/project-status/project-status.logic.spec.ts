import { testEvent } from '@flaglens/testing/test-events';
import {
  projectLifecycleSummary,
  projectSegments,
  projectTokens,
  statusHealth,
} from './project-status.logic';

const token = (
  id: number,
  type: string,
  name: string,
  projects: string[],
  extra: Record<string, unknown> = {},
) => {
  const d = {
    tokenName: name,
    type: 'client',
    environment: 'development',
    projects,
    createdAt: `2026-01-0${id}T00:00:00.000Z`,
    ...extra,
  };
  return type === 'api-token-deleted'
    ? testEvent(id, type, { preData: d, project: projects.join(',') })
    : testEvent(id, type, { data: d, project: projects.join(',') });
};

describe('the project status', () => {
  it('health: Unleash’s live formula, 100 without flags', () => {
    expect(statusHealth(0, 0, 0)).toBe(100);
    expect(statusHealth(3, 1, 0)).toBe(67);
    expect(statusHealth(8, 1, 3)).toBe(50);
  });

  it('API tokens: those that name the project, until deleted or the project is; never `*`, never v2', () => {
    const a = token(1, 'api-token-created', 'a', ['default']);
    const b = token(2, 'api-token-created', 'b', ['default', 'other']);
    const star = token(3, 'api-token-created', 'all', ['*']);
    const v2 = token(4, 'api-token-created', 'v2', ['default'], { tokenVersion: 2 });
    expect(projectTokens([a, b, star, v2], 'default')).toBe(2);
    expect(projectTokens([a, b, star, v2], 'other')).toBe(1);
    // deleted: matched by its name, creation time, type, environment and projects
    const aGone = token(1, 'api-token-deleted', 'a', ['default']);
    expect(projectTokens([a, b, { ...aGone, id: 9 }], 'default')).toBe(1);
    // the project deleted: its rows cascade, tokens made after count again
    const deleted = testEvent(10, 'project-deleted', { project: 'default', data: { id: 'default' } });
    const c = token(5, 'api-token-created', 'c', ['default']);
    expect(projectTokens([a, b, deleted, { ...c, id: 11 }], 'default')).toBe(1);
  });

  it('segments: by the project their latest version names, until deleted or the project is', () => {
    const created = (id: number, seg: number, project?: string) =>
      testEvent(id, 'segment-created', { data: { id: seg, name: `s${seg}`, ...(project && { project }) } });
    const moved = testEvent(4, 'segment-updated', { data: { id: 2, name: 's2' } });
    const gone = testEvent(5, 'segment-deleted', { preData: { id: 3, name: 's3', project: 'p' } });
    const events = [created(1, 1, 'p'), created(2, 2, 'p'), created(3, 3, 'p'), moved, gone];
    expect(projectSegments(events, 'p')).toBe(1);
    expect(projectSegments([...events, testEvent(6, 'project-deleted', { data: { id: 'p' } })], 'p')).toBe(0);
  });

  it('lifecycle: averages of completed stays, current stages of flags not archived, archived lately', () => {
    const now = new Date('2026-03-01T00:00:00.000Z');
    const at = (d: string) => `${d}T00:00:00.000Z`;
    const summary = projectLifecycleSummary(
      [
        // initial 2 days, pre-live 3 days, now live
        {
          archivedAt: null,
          stages: [
            { stage: 'initial', enteredAt: at('2026-01-01') },
            { stage: 'pre-live', enteredAt: at('2026-01-03') },
            { stage: 'live', enteredAt: at('2026-01-06') },
          ],
        },
        // initial 3 days, archived in the last 30 days: no current stage
        {
          archivedAt: at('2026-02-20'),
          stages: [
            { stage: 'initial', enteredAt: at('2026-02-17') },
            { stage: 'archived', enteredAt: at('2026-02-20') },
          ],
        },
        // revived: its latest stage archived counts as initial
        { archivedAt: null, stages: [{ stage: 'archived', enteredAt: at('2026-01-10') }] },
        // archived long ago
        { archivedAt: at('2025-12-01'), stages: [] },
      ],
      now,
    );
    expect(summary).toEqual({
      initial: { averageDays: 3, currentFlags: 1 }, // (2 + 3) / 2 = 2.5, rounded half away from zero
      preLive: { averageDays: 3, currentFlags: 0 },
      live: { averageDays: null, currentFlags: 1 },
      completed: { averageDays: null, currentFlags: 0 },
      archived: { currentFlags: 2, last30Days: 1 },
    });
  });
});
