import type { PoolClient } from 'pg';
import type { Projection, ProjectionContext, SourcedEvent } from '../projection';
import { insightsChanges, earliestInvalidated, reattributedFlags } from './insights.logic';
import { invalidateInsightsWeeks } from './insights.weeks';

/**
 * Instance insights (semantics §4, §7.5): pre-aggregates by UTC day (insights.logic.ts). Upserts are sorted
 * by key so two partitions' transactions lock shared rows in the same order. Skips are reported by the
 * projections that own the data (flag-state, sdk-usage), not twice here.
 */
export class InsightsProjection implements Projection {
  readonly name = 'insights';
  readonly writes = [
    'insights_flag_deltas',
    'insights_project_changes',
    'insights_users',
    'insights_user_weeks',
    'insights_env_project_updates',
    'insights_metrics',
    'insights_metric_flags',
  ];
  /**
   * the flags' states before and after each event (flag-state's transitions, ProjectionContext.transitions),
   * and the background store's weeks (insights.weeks.ts): a change to a past week ends their validity there
   */
  readonly reads = ['flag_state', 'insights_weeks_stored'];
  /** weekly aggregates of the whole instance, read by the insights report alone */
  readonly scope = 'instance';

  handles(): boolean {
    return true;
  }

  async apply(client: PoolClient, stored: SourcedEvent[], context: ProjectionContext): Promise<void> {
    const events = stored.map((s) => s.event);
    const c = insightsChanges(context.transitions, events);
    // first (a row lock only when it moves back, taken before the rows the store locks): the stored weeks from
    // the earliest week this batch touches are no longer valid
    let from = earliestInvalidated(context.transitions, events);
    // a flag's metrics count under its current project in every week: one moved (or deleted, or created after
    // its metrics) changes the weeks from its first metrics on
    const moved = reattributedFlags(context.transitions);
    if (moved.length > 0) {
      const first = (
        await client.query<{ d: string | null }>(
          `SELECT min(first_day)::text AS d FROM insights_metric_flags WHERE feature = ANY($1::text[])`,
          [moved],
        )
      ).rows[0]?.d;
      if (first && (from === null || first < from)) from = first;
    }
    if (from !== null) await invalidateInsightsWeeks(client, from);
    if (c.flagDeltas.length > 0)
      await client.query(
        `INSERT INTO insights_flag_deltas AS x (day, project, type, created_day, d_total, d_stale, d_fresh)
         SELECT * FROM json_to_recordset($1::json) AS t(day date, project text, type text, "createdDay" date,
                total integer, stale integer, fresh integer)
          ORDER BY 1, 2, 3, 4
         ON CONFLICT (day, project, type, created_day) DO UPDATE SET d_total = x.d_total + EXCLUDED.d_total,
                d_stale = x.d_stale + EXCLUDED.d_stale, d_fresh = x.d_fresh + EXCLUDED.d_fresh`,
        [JSON.stringify(c.flagDeltas)],
      );
    if (c.projects.length > 0)
      await client.query(
        `INSERT INTO insights_project_changes (project, event_id, at, live)
         SELECT * FROM json_to_recordset($1::json) AS t(project text, "eventId" bigint, at timestamptz, live boolean)
          ORDER BY 1, 2
         ON CONFLICT DO NOTHING`,
        [JSON.stringify(c.projects)],
      );
    if (c.users.length > 0)
      await client.query(
        `INSERT INTO insights_users AS u (id, created_at, deleted_at)
         SELECT * FROM json_to_recordset($1::json) AS t(id bigint, "createdAt" timestamptz, "deletedAt" timestamptz)
          ORDER BY 1
         ON CONFLICT (id) DO UPDATE SET
           created_at = CASE WHEN u.created_at IS NULL THEN EXCLUDED.created_at
                             ELSE LEAST(u.created_at, COALESCE(EXCLUDED.created_at, u.created_at)) END,
           deleted_at = COALESCE(EXCLUDED.deleted_at, u.deleted_at)`,
        [JSON.stringify(c.users)],
      );
    if (c.userWeeks.length > 0)
      await client.query(
        `INSERT INTO insights_user_weeks AS w (week, user_id, first_day, last_day)
         SELECT * FROM json_to_recordset($1::json) AS t(week date, "userId" bigint, "firstDay" date, "lastDay" date)
          ORDER BY 1, 2
         ON CONFLICT (week, user_id) DO UPDATE SET first_day = LEAST(w.first_day, EXCLUDED.first_day),
                last_day = GREATEST(w.last_day, EXCLUDED.last_day)`,
        [JSON.stringify(c.userWeeks)],
      );
    if (c.envUpdates.length > 0)
      await client.query(
        `INSERT INTO insights_env_project_updates AS x (day, environment, project, n)
         SELECT * FROM json_to_recordset($1::json) AS t(day date, environment text, project text, n bigint)
          ORDER BY 1, 2, 3
         ON CONFLICT (day, environment, project) DO UPDATE SET n = x.n + EXCLUDED.n`,
        [JSON.stringify(c.envUpdates)],
      );
    if (c.metrics.length > 0)
      await client.query(
        `INSERT INTO insights_metrics AS x (day, project_hint, feature, app, environment, yes, no)
         SELECT * FROM json_to_recordset($1::json) AS t(day date, "projectHint" text, feature text, app text,
                environment text, yes bigint, no bigint)
          ORDER BY 1, 2, 3, 4, 5
         ON CONFLICT (day, project_hint, feature, app, environment) DO UPDATE SET yes = x.yes + EXCLUDED.yes,
                no = x.no + EXCLUDED.no`,
        [JSON.stringify(c.metrics)],
      );
    if (c.metrics.length > 0)
      await client.query(
        `INSERT INTO insights_metric_flags AS x (feature, first_day)
         SELECT feature, min(day) FROM json_to_recordset($1::json) AS t(day date, feature text)
          GROUP BY feature ORDER BY feature
         ON CONFLICT (feature) DO UPDATE SET first_day = EXCLUDED.first_day
          WHERE EXCLUDED.first_day < x.first_day`,
        [JSON.stringify(c.metrics)],
      );
  }
}
