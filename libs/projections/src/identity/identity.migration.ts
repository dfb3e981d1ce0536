import { MigrationInterface, QueryRunner } from 'typeorm';
import { DEFAULT_PROJECT, SEED_ROLES, SEED_USERS } from './identity-seed';

/**
 * Identity read models (users, roles, groups, project memberships, favourites) and their bootstrap rows,
 * equal to a fresh reference installation (semantics §8). Update rules: identity-state.ts.
 *
 * `identity_project_states` keeps only what identity reads need about projects (present, archived, mode,
 * the last project-deleted id). It is deliberately separate from the main `projects` table, which the
 * project-overview projection owns; both are fed by the same project events.
 */
export class Identity1763800001100 implements MigrationInterface {
  name = 'Identity1763800001100';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE identity_roles (
        id            bigint  PRIMARY KEY,
        name          text    NOT NULL,
        type          text    NOT NULL,
        description   text    NULL,
        deleted       boolean NOT NULL DEFAULT false,
        last_event_id bigint  NOT NULL DEFAULT 0
      )`);
    await q.query(`CREATE INDEX identity_roles_name_idx ON identity_roles (name)`);
    await q.query(`
      CREATE TABLE identity_users (
        id            bigint  PRIMARY KEY,
        name          text    NULL,
        username      text    NULL,
        email         text    NULL,
        root_role_id  bigint  NULL,
        is_system     boolean NOT NULL DEFAULT false,
        deleted       boolean NOT NULL DEFAULT false,
        last_event_id bigint  NOT NULL DEFAULT 0
      )`);
    await q.query(`CREATE INDEX identity_users_username_idx ON identity_users (lower(username))`);
    await q.query(`CREATE INDEX identity_users_email_idx ON identity_users (lower(email))`);
    await q.query(`
      CREATE TABLE identity_groups (
        id            bigint  PRIMARY KEY,
        name          text    NULL,
        deleted       boolean NOT NULL DEFAULT false,
        last_event_id bigint  NOT NULL DEFAULT 0
      )`);
    // group-created carries no id (semantics §7.6 G6): held by its unique name until an event binds it
    await q.query(`
      CREATE TABLE identity_pending_groups (
        name          text     PRIMARY KEY,
        users         bigint[] NOT NULL,
        last_event_id bigint   NOT NULL
      )`);
    await q.query(`
      CREATE TABLE identity_group_users (
        group_id bigint NOT NULL,
        user_id  bigint NOT NULL,
        PRIMARY KEY (group_id, user_id)
      )`);
    await q.query(`CREATE INDEX identity_group_users_user_idx ON identity_group_users (user_id)`);
    await q.query(`
      CREATE TABLE identity_project_states (
        project        text    PRIMARY KEY,
        present        boolean NOT NULL,
        archived       boolean NOT NULL DEFAULT false,
        mode           text    NOT NULL DEFAULT 'open',
        reset_event_id bigint  NOT NULL DEFAULT 0,
        last_event_id  bigint  NOT NULL DEFAULT 0
      )`);
    // role_user and group_role of the reference, in one table; role_ref is 'id:<n>' or 'name:<role name>'
    await q.query(`
      CREATE TABLE identity_project_members (
        project        text        NOT NULL,
        principal_kind text        NOT NULL CHECK (principal_kind IN ('user', 'group')),
        principal_id   bigint      NOT NULL,
        role_ref       text        NOT NULL,
        role_id        bigint      NULL,
        role_name      text        NULL,
        created_at     timestamptz NOT NULL,
        PRIMARY KEY (project, principal_kind, principal_id, role_ref)
      )`);
    await q.query(
      `CREATE INDEX identity_project_members_principal_idx ON identity_project_members (principal_kind, principal_id)`,
    );
    await q.query(`
      CREATE TABLE identity_member_versions (
        project        text   NOT NULL,
        principal_kind text   NOT NULL,
        principal_id   bigint NOT NULL,
        last_event_id  bigint NOT NULL,
        PRIMARY KEY (project, principal_kind, principal_id)
      )`);
    await q.query(`
      CREATE TABLE identity_favorites (
        user_id       bigint  NOT NULL,
        target        text    NOT NULL CHECK (target IN ('project', 'feature')),
        name          text    NOT NULL,
        is_favorite   boolean NOT NULL,
        last_event_id bigint  NOT NULL,
        PRIMARY KEY (user_id, target, name)
      )`);

    for (const r of SEED_ROLES)
      await q.query(`INSERT INTO identity_roles (id, name, type, description) VALUES ($1, $2, $3, $4)`, [
        r.id,
        r.name,
        r.type,
        r.description,
      ]);
    for (const u of SEED_USERS)
      await q.query(
        `INSERT INTO identity_users (id, name, username, email, root_role_id, is_system) VALUES ($1, $2, $3, $4, $5, $6)`,
        [u.id, u.name, u.username, u.email, u.rootRoleId, u.isSystem],
      );
    await q.query(`INSERT INTO identity_project_states (project, present) VALUES ($1, true)`, [
      DEFAULT_PROJECT,
    ]);
  }

  async down(q: QueryRunner): Promise<void> {
    for (const t of [
      'personal_access_tokens',
      'identity_favorites',
      'identity_member_versions',
      'identity_project_members',
      'identity_project_states',
      'identity_group_users',
      'identity_pending_groups',
      'identity_groups',
      'identity_users',
      'identity_roles',
    ])
      await q.query(`DROP TABLE ${t}`);
  }
}
