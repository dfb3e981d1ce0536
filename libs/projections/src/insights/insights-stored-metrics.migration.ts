import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Stored weeks of the insights' SDK metrics and users (insights.weeks.ts), beside the per-project flag figures:
 * `insights_metric_weeks` (per closed week and project: METRICS_SQL's row) and `insights_user_totals_weeks` (per
 * closed week: USERS_SQL's row), valid for the same weeks as the others (`insights_weeks_stored`).
 * `insights_metric_flags`: the first day each flag has metrics, so that a flag whose project changes (a move, a
 * deletion, a creation: the metrics count under the flag's current project) invalidates the stored weeks from its
 * first metrics on, not all of them. Every stored week is invalidated here: they are stored again, with these.
 */
export class InsightsStoredMetrics1763800005400 implements MigrationInterface {
  name = 'InsightsStoredMetrics1763800005400';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE insights_metric_weeks (
        ws      date    NOT NULL,
        project text    NOT NULL,
        yes     bigint  NOT NULL,
        no      bigint  NOT NULL,
        apps    integer NOT NULL,
        flags   integer NOT NULL,
        envs    integer NOT NULL,
        PRIMARY KEY (ws, project)
      )`);
    await q.query(`
      CREATE TABLE insights_user_totals_weeks (
        ws     date    PRIMARY KEY,
        total  integer NOT NULL,
        active integer NOT NULL
      )`);
    await q.query(`CREATE TABLE insights_metric_flags (feature text PRIMARY KEY, first_day date NOT NULL)`);
    await q.query(`INSERT INTO insights_metric_flags (feature, first_day)
                   SELECT feature, min(day) FROM insights_metrics GROUP BY feature`);
    await q.query(`UPDATE insights_weeks_stored SET valid_until = '-infinity'`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE insights_metric_flags`);
    await q.query(`DROP TABLE insights_user_totals_weeks`);
    await q.query(`DROP TABLE insights_metric_weeks`);
  }
}
