import { testEvent as ev } from '../testing-events';
import { OWNER_ROLE_ID, reduceProjectAccess } from './project-access.logic';

describe('minimal project access (to be replaced by the identity read model)', () => {
  it('creator is Owner; users added and removed; favourites by createdByUserId', () => {
    const { projects, skipped } = reduceProjectAccess(
      [],
      [],
      [
        ev(1, 'project-created', { project: 'p', createdByUserId: 7 }),
        ev(2, 'project-user-added', { project: 'p', data: { userId: 8, roleId: 5 } }),
        ev(3, 'project-access-added', {
          project: 'p',
          data: { roles: { roleId: 5, userIds: [9, 'x'], groupIds: [] } },
        }),
        ev(4, 'project-user-removed', { project: 'p', preData: { userId: 9, roleId: 5 } }),
        ev(5, 'project-favorited', { project: 'p', createdByUserId: 3 }),
        ev(6, 'project-favorited', { project: 'p', createdByUserId: null }),
        ev(7, 'project-user-added', { project: 'p', data: {} }),
      ],
    );
    expect(projects.get('p')!.members.map((m) => [m.userId, m.roleId])).toEqual([
      [7, OWNER_ROLE_ID],
      [8, 5],
    ]);
    expect(projects.get('p')!.favorites).toEqual([{ project: 'p', userId: 3 }]);
    expect(skipped.map((s) => s.eventId)).toEqual([6, 7]);
  });
});
