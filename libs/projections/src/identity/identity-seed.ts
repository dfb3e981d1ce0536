/**
 * What a fresh reference installation has before its first event (semantics §8): the predefined roles
 * (ids, names and descriptions as Unleash 6.10), the initial `admin` user (created at start-up with no
 * event, root role Admin) and the two system users. Used by the migration and by the in-memory state.
 */
export const SEED_ROLES = [
  {
    id: 1,
    name: 'Admin',
    type: 'root',
    description:
      'Users with the root admin role have superuser access to Unleash and can perform any operation within the Unleash platform.',
  },
  {
    id: 2,
    name: 'Editor',
    type: 'root',
    description:
      'Users with the root editor role have access to most features in Unleash, but can not manage users and roles in the root scope. Editors will be added as project owners when creating projects and get superuser rights within the context of these projects. Users with the editor role will also get access to most permissions on the default project by default.',
  },
  {
    id: 3,
    name: 'Viewer',
    type: 'root',
    description:
      'Users with the root viewer role can only read root resources in Unleash. Viewers can be added to specific projects as project members. Users with the viewer role may not view API tokens.',
  },
  {
    id: 4,
    name: 'Owner',
    type: 'project',
    description:
      'Users with the project owner role have full control over the project, and can add and manage other users within the project context, manage feature flags within the project, and control advanced project features like archiving and deleting the project.',
  },
  {
    id: 5,
    name: 'Member',
    type: 'project',
    description:
      "Users with the project member role are allowed to view, create, and update feature flags within a project, but have limited permissions in regards to managing the project's user access and can not archive or delete the project.",
  },
] as const;

export const SEED_USERS = [
  { id: 1, name: null, username: 'admin', email: null, rootRoleId: 1, isSystem: false },
  {
    id: -1337,
    name: 'Unleash System',
    username: 'unleash_system_user',
    email: null,
    rootRoleId: null,
    isSystem: true,
  },
  {
    id: -42,
    name: 'Unleash Admin Token User',
    username: 'unleash_admin_token',
    email: null,
    rootRoleId: null,
    isSystem: true,
  },
] as const;

/** The project every root-role row lives in (semantics §2.2); seeded by the projects projection too. */
export const DEFAULT_PROJECT = 'default';

export const SUBSCRIPTION_TYPES = ['productivity-report'] as const;
