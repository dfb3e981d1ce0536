import { avatarUrl, detailsInsights, projectOwners } from './personal-dashboard.logic';

describe('the personal dashboard', () => {
  it('avatars: the gravatar of email, else username, else id, lower-cased unless it starts with @', () => {
    // sha256('admin')
    expect(avatarUrl({ username: 'admin', id: 1 })).toBe(
      'https://gravatar.com/avatar/8c6976e5b5410415bde908bd4dee15dfb167a9c873fc4bb8a81f6f2ab448a918?s=42&d=retro&r=g',
    );
    expect(avatarUrl({ email: 'Admin ', id: 1 })).toBe(avatarUrl({ username: 'admin', id: 2 }));
    expect(avatarUrl({ email: '@Admin' })).not.toBe(avatarUrl({ email: '@admin' }));
    // no value at all: the text "undefined", as Unleash's String(undefined)
    expect(avatarUrl({ email: '' })).toBe(avatarUrl({ username: 'undefined' }));
  });

  it('project owners: per project in order of first appearance, once per email or name, at the first place', () => {
    const row = (project: string, id: number, name: string | null, email: string | null) => ({
      project,
      id,
      name,
      username: null,
      email,
    });
    const owners = projectOwners([
      row('b', 1, 'Ann', 'ann@x'),
      row('a', 2, 'Bob', null),
      row('b', 3, 'Cy', 'cy@x'),
      row('a', 1, 'Ann', 'ann@x'),
    ]);
    // project b's owners first (its row came first), then a's; Ann once
    expect(owners.map((o) => o.name)).toEqual(['Ann', 'Cy', 'Bob']);
    expect(owners[0]).toMatchObject({ ownerType: 'user', email: 'ann@x' });
  });

  it('insights of an archived project are zeros; of another, active flags are neither stale kind', () => {
    expect(detailsInsights(null)).toEqual({
      avgHealthCurrentWindow: null,
      avgHealthPastWindow: null,
      totalFlags: 0,
      potentiallyStaleFlags: 0,
      staleFlags: 0,
      activeFlags: 0,
      technicalDebt: 0,
      health: 0,
    });
    expect(detailsInsights({ total: 10, stale: 2, potentiallyStale: 3, health: 50 })).toMatchObject({
      activeFlags: 5,
      technicalDebt: 50,
      health: 50,
    });
  });
});
