import { isRootAdminRole } from './root-admin';

describe('isRootAdminRole', () => {
  it('is the root role named Admin, in any case', () => {
    expect(isRootAdminRole({ name: 'Admin', type: 'root' })).toBe(true);
    expect(isRootAdminRole({ name: 'admin', type: 'root' })).toBe(true);
  });
  it('is no other root role, nor a project role named Admin', () => {
    expect(isRootAdminRole({ name: 'Editor', type: 'root' })).toBe(false);
    expect(isRootAdminRole({ name: 'Viewer', type: 'root' })).toBe(false);
    expect(isRootAdminRole({ name: 'Admin', type: 'project' })).toBe(false);
    expect(isRootAdminRole({ name: 'Admins', type: 'root-custom' })).toBe(false);
  });
});
