/**
 * Whether a root role is the predefined root Admin: by name (any case) and type, as Unleash's
 * `AccessReadModel.isRootAdmin` decides it. Root Admins see every event in the event search, and they are the
 * operators of the console's Operations page. No imports: the console's bundle uses it too.
 */
export function isRootAdminRole(role: { name: string; type: string }): boolean {
  return role.type === 'root' && role.name.toLowerCase() === 'admin';
}
