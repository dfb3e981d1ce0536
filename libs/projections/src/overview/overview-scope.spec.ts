import { testEvent } from '../testing-events';
import { overviewScope } from './overview-scope';

describe('overviewScope: the projects a batch may change', () => {
  it('names the events’ projects (event and payload) and collects their flags', () => {
    const s = overviewScope([
      testEvent(1, 'feature-created', { project: 'p1', featureName: 'f1', data: { project: 'p1' } }),
      testEvent(2, 'feature-project-change', {
        project: 'p3',
        featureName: 'f2',
        data: { newProject: 'p3', oldProject: 'p2' },
      }),
      testEvent(3, 'feature-archived', { featureName: 'f3' }),
    ]);
    expect(s.global).toBe(false);
    expect([...s.projects].sort()).toEqual(['p1', 'p2', 'p3']);
    expect([...s.flags].sort()).toEqual(['f1', 'f2', 'f3']);
  });

  it('a metrics report names the flags it marks as seen', () => {
    const s = overviewScope([
      testEvent(1, 'client-metrics', { data: { bucket: { toggles: { a: {}, b: {} } } } }),
    ]);
    expect(s.global).toBe(false);
    expect([...s.flags].sort()).toEqual(['a', 'b']);
  });

  it.each([
    ['environment-updated', {}],
    ['feature-type-updated', {}],
    ['user-deleted', { project: 'p1' }],
    ['role-updated', {}],
    ['group-user-added', {}],
    ['strategy-created', {}], // names neither a project nor a flag: reach unknown
  ])('%s reaches every project', (type, o) => {
    expect(
      overviewScope([testEvent(1, 'feature-created', { project: 'p' }), testEvent(2, type, o)]).global,
    ).toBe(true);
  });
});
