import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Instance insights (projection `insights`): weekly trends pre-aggregated by UTC day as events arrive, so a
 * report sums small aggregates instead of scanning the event log. See insights.logic.ts for the rules and
 * the README ("Instance insights") for why deltas and change points.
 */
export class Insights1763800002001 implements MigrationInterface {
  name = 'Insights1763800002001';

  async up(q: QueryRunner): Promise<void> {
    // the insights' own copy of each flag's current state (the "before" of the next event of the flag)
    await q.query(`
      CREATE TABLE insights_flags (
        name        text        PRIMARY KEY,
        project     text        NOT NULL,
        type        text        NOT NULL,
        stale       boolean     NOT NULL,
        created_at  timestamptz NOT NULL,
        archived_at timestamptz NULL,
        deleted     boolean     NOT NULL
      )`);
    // per UTC day of change: the change of live flags (total), stale ones and live non-stale ones (fresh)
    await q.query(`
      CREATE TABLE insights_flag_deltas (
        day         date    NOT NULL,
        project     text    NOT NULL,
        type        text    NOT NULL,
        created_day date    NOT NULL,
        d_total     integer NOT NULL,
        d_stale     integer NOT NULL,
        d_fresh     integer NOT NULL,
        PRIMARY KEY (day, project, type, created_day)
      )`);
    // project lifecycle change points; 'default' is live from the beginning (seeded, no event)
    await q.query(`
      CREATE TABLE insights_project_changes (
        project  text        NOT NULL,
        event_id bigint      NOT NULL,
        at       timestamptz NOT NULL,
        live     boolean     NOT NULL,
        PRIMARY KEY (project, event_id)
      )`);
    await q.query(`INSERT INTO insights_project_changes VALUES ('default', 0, '-infinity', true)`);
    // users counted in userTrends: not system (id > 0); the seeded admin (id 1) exists from the beginning
    await q.query(`
      CREATE TABLE insights_users (
        id         bigint      PRIMARY KEY,
        created_at timestamptz NULL,
        deleted_at timestamptz NULL
      )`);
    await q.query(`INSERT INTO insights_users VALUES (1, '-infinity', NULL)`);
    // days each user authored an event, per week (first and last): enough for a trailing 60-day window
    await q.query(`
      CREATE TABLE insights_user_weeks (
        week      date   NOT NULL,
        user_id   bigint NOT NULL,
        first_day date   NOT NULL,
        last_day  date   NOT NULL,
        PRIMARY KEY (week, user_id)
      )`);
    await q.query(`
      CREATE TABLE insights_env_updates (
        day         date   NOT NULL,
        environment text   NOT NULL,
        n           bigint NOT NULL,
        PRIMARY KEY (day, environment)
      )`);
    await q.query(`
      CREATE TABLE insights_metrics (
        day          date   NOT NULL,
        project_hint text   NOT NULL,
        feature      text   NOT NULL,
        app          text   NOT NULL,
        environment  text   NOT NULL,
        yes          bigint NOT NULL,
        no           bigint NOT NULL,
        PRIMARY KEY (day, project_hint, feature, app, environment)
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    for (const t of [
      'insights_metrics',
      'insights_env_updates',
      'insights_user_weeks',
      'insights_users',
      'insights_project_changes',
      'insights_flag_deltas',
      'insights_flags',
    ])
      await q.query(`DROP TABLE ${t}`);
  }
}
