import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Stored weeks of the insights' per-project flag figures (insights.weeks.ts): the running sums of closed weeks,
 * per (week, live project), so a report computes only the weeks from the first unstored or invalidated one.
 * `insights_weeks_stored` (one row): the rows are valid for the weeks in [valid_from, valid_until); the
 * projector moves `valid_until` back to the week of any event dated before it, in the event's batch.
 * `insights_project_base`: every project's sums of the deltas of the weeks before `base_at` (where the running
 * sums of the computed weeks start), valid while `valid_until = base_at`. `first_day`: the day of the first event
 * when stored (an event of an unknown type, which the projection does not see, may move it back). Environment updates of the stored
 * weeks: per (week, environment) and per (week, environment, project) (to leave hidden projects out); their
 * current environment types are joined at read time.
 */
export class InsightsStoredWeeks1763800004210 implements MigrationInterface {
  name = 'InsightsStoredWeeks1763800004210';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE insights_project_weeks (
        ws      date    NOT NULL,
        project text    NOT NULL,
        total   integer NOT NULL,
        stale   integer NOT NULL,
        ps      integer NOT NULL,
        PRIMARY KEY (ws, project)
      )`);
    await q.query(`
      CREATE TABLE insights_weeks_stored (
        one         boolean PRIMARY KEY DEFAULT true CHECK (one),
        valid_from  date    NOT NULL,
        valid_until date    NOT NULL,
        base_at     date    NOT NULL,
        first_day   date    NOT NULL
      )`);
    await q.query(
      `INSERT INTO insights_weeks_stored VALUES (true, 'infinity', '-infinity', 'infinity', 'infinity')`,
    );
    await q.query(`
      CREATE TABLE insights_project_base (
        project text   PRIMARY KEY,
        total   bigint NOT NULL,
        stale   bigint NOT NULL,
        ps      bigint NOT NULL
      )`);
    await q.query(`
      CREATE TABLE insights_env_weeks (
        ws          date   NOT NULL,
        environment text   NOT NULL,
        n           bigint NOT NULL,
        PRIMARY KEY (ws, environment)
      )`);
    await q.query(`
      CREATE TABLE insights_env_project_weeks (
        ws          date   NOT NULL,
        environment text   NOT NULL,
        project     text   NOT NULL,
        n           bigint NOT NULL,
        PRIMARY KEY (ws, environment, project)
      )`);
    await q.query(
      `CREATE INDEX insights_env_project_weeks_project ON insights_env_project_weeks (project, ws)`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE insights_env_project_weeks`);
    await q.query(`DROP TABLE insights_env_weeks`);
    await q.query(`DROP TABLE insights_project_base`);
    await q.query(`DROP TABLE insights_weeks_stored`);
    await q.query(`DROP TABLE insights_project_weeks`);
  }
}
