import { changesBetween, classify, countByKind, type ProjectEvent } from './project-changes';

let nextId = 1;
function ev(type: string, createdAt: string, more: Partial<ProjectEvent> = {}): ProjectEvent {
  return {
    id: nextId++,
    createdAt,
    type,
    project: 'p',
    featureName: 'f',
    environment: null,
    createdBy: 'alice',
    data: null,
    ...more,
  };
}

describe('what changed in a project between two instants', () => {
  it('classifies flag and member events; others are no change', () => {
    const kind = (e: ProjectEvent) => classify(e, 'p')?.kind ?? null;
    expect(kind(ev('feature-created', 't'))).toBe('added');
    expect(kind(ev('feature-environment-enabled', 't', { environment: 'production' }))).toBe('enabled');
    expect(kind(ev('feature-environment-disabled', 't', { environment: 'production' }))).toBe('disabled');
    expect(kind(ev('feature-archived', 't'))).toBe('archived');
    expect(kind(ev('feature-revived', 't'))).toBe('revived');
    expect(kind(ev('feature-deleted', 't'))).toBe('deleted');
    for (const t of ['project-user-added', 'project-user-removed', 'project-access-user-roles-updated'])
      expect(kind(ev(t, 't', { featureName: null }))).toBe('member');
    for (const t of ['feature-strategy-add', 'feature-tagged', 'feature-stale-on', 'project-favorited'])
      expect(kind(ev(t, 't'))).toBeNull();
    // an event of another project is no change of this one
    expect(kind(ev('feature-created', 't', { project: 'q' }))).toBeNull();
  });

  it('a move is in for the new project and out for the old one', () => {
    const data = { name: 'f', oldProject: 'q', newProject: 'p' };
    const move = ev('feature-project-change', 't', { data });
    expect(classify(move, 'p')?.kind).toBe('moved-in');
    expect(classify(move, 'q')?.kind).toBe('moved-out');
    expect(classify(move, 'r')).toBeNull();
  });

  it('keeps the environment of an enable or disable only, and the event id of each', () => {
    const e = ev('feature-environment-enabled', 't', { environment: 'dev' });
    expect(classify(e, 'p')).toEqual({
      kind: 'enabled',
      eventId: e.id,
      createdAt: 't',
      type: 'feature-environment-enabled',
      createdBy: 'alice',
      flag: 'f',
      environment: 'dev',
    });
    expect(classify(ev('feature-created', 't', { environment: 'dev' }), 'p')?.environment).toBeNull();
  });

  it('takes the events after T1 and up to T2, oldest first', () => {
    const t1 = '2026-11-22T08:52:50.000Z';
    const t2 = '2026-11-22T08:52:52.000Z';
    const atT1 = ev('feature-created', t1);
    const afterT2 = ev('feature-archived', '2026-11-22T08:52:52.001Z');
    const late = ev('feature-archived', t2);
    const early = ev('feature-created', '2026-11-22T08:52:50.001Z');
    const got = changesBetween([afterT2, late, atT1, early], 'p', t1, t2);
    expect(got.map((c) => c.eventId)).toEqual([early.id, late.id]);
    expect(countByKind(got)).toMatchObject({ added: 1, archived: 1, enabled: 0, member: 0 });
  });
});
