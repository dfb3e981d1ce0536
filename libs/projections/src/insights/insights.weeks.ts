import { DAY_MS, WEEK_MS } from '../time';
import type { PoolClient } from 'pg';
import {
  DEFAULT_INSIGHTS_MAX_WEEKS,
  METRICS_SQL,
  mondayOf,
  PROJECT_FLAGS_SQL,
  USERS_SQL,
} from './insights.read-model';

const addDays = (day: string, n: number) => new Date(Date.parse(day) + n * DAY_MS).toISOString().slice(0, 10);
const minDay = (a: string, b: string) => (a < b ? a : b);

/**
 * Stored weeks of the insights (the per-project flag figures, the SDK metrics per project, the users, and the
 * environment updates per week): a cache of PROJECT_FLAGS_SQL's, METRICS_SQL's and USERS_SQL's rows for closed
 * weeks and of the weekly sums ENV_TYPES_SQL reads, in the projection's schema, never an input of anything.
 *
 * Every figure of a week depends on events dated up to that week (flag deltas, project change points, the
 * first event's week) and on the current feature-type lifetimes; hidden projects are a read-time filter
 * (rows are per project). So an event dated before `valid_until`, or a `feature-type-updated`, moves
 * `valid_until` back (`invalidateInsightsWeeks`, in the batch's transaction: a no-op update, taking no lock,
 * for events of the current week), and `storeInsightsWeeks` recomputes from there off the hot path. The metrics
 * count under each flag's current project: a flag whose project changes moves it back to the flag's first
 * metrics (`insights_metric_flags`).
 */

/** In the projector's batch: the stored weeks from the week of `day` on are no longer valid. */
export async function invalidateInsightsWeeks(client: PoolClient, day: string): Promise<void> {
  await client.query(
    `UPDATE insights_weeks_stored SET valid_until = date_trunc('week', $1::date)::date
      WHERE valid_until > date_trunc('week', $1::date)::date`,
    [day],
  );
}

/**
 * At most this many weeks are computed in one store (one transaction): a store holds batches back while it
 * computes, and a history of years computed in one statement outlasts any lock a batch can wait for. The next
 * store goes on from where this one ended (`valid_until`).
 */
export const INSIGHTS_STORE_CHUNK_WEEKS = 26;

/**
 * Stores the weeks before the week of `now` (at most `maxWeeks` weeks back) that are not stored or no longer
 * valid, at most `chunkWeeks` of them, oldest first, inside the caller's transaction (search_path set to the
 * projection's schema), which the caller then commits. When something is to store, it first locks the report's
 * inputs against writes (SHARE, in the order batches write them: it waits for batches in flight, and new
 * batches wait for it), so rows are never computed from a snapshot that a concurrent batch invalidates unseen.
 * Weeks before the first event's have no rows and are not computed. Returns the weeks (re)computed: 0 when all
 * were stored (then it took no lock, unless the sums before the current week were to store); more than 0 when
 * the caller should call it again to go on.
 */
export async function storeInsightsWeeks(
  client: PoolClient,
  now: Date,
  maxWeeks = DEFAULT_INSIGHTS_MAX_WEEKS,
  chunkWeeks = INSIGHTS_STORE_CHUNK_WEEKS,
): Promise<number> {
  const target = mondayOf(now.toISOString().slice(0, 10));
  const earliest = addDays(target, -7 * maxWeeks);
  type Marker = {
    valid_from: string;
    valid_until: string;
    base_at: string;
    first_day: string;
    first: string;
  };
  // with the day of the first event now: the first week of the report (events of an unknown type included,
  // which the projection does not see)
  const marker = async (lock: string) =>
    (
      await client.query<Marker>(
        `SELECT valid_from::text, valid_until::text, base_at::text, first_day::text,
                COALESCE((SELECT (min(created_at) AT TIME ZONE 'UTC')::date FROM event_log), 'infinity')::text AS first
           FROM insights_weeks_stored ${lock}`,
      )
    ).rows[0];
  const peek = await marker('');
  if (
    !peek ||
    (peek.valid_until === target &&
      peek.valid_from === earliest &&
      peek.base_at === target &&
      peek.first_day === peek.first)
  )
    return 0;
  // a store waits for batches in flight, and batches queue behind its request: never for long
  await client.query(`SET LOCAL lock_timeout = '2s'`);
  await client.query(
    `LOCK TABLE event_log, feature_types, insights_flag_deltas, insights_project_changes,
                insights_env_project_updates IN SHARE MODE`,
  );
  const m = await marker('FOR UPDATE');
  // the valid rows are kept when they cover the span's start (a row's figures do not depend on where the
  // span starts); else the whole span is recomputed
  const keep = m.valid_from <= earliest && m.valid_until > earliest && m.first_day === m.first;
  const invalidFrom = keep ? (m.valid_until < target ? m.valid_until : target) : earliest;
  // no week before the first event's has rows: the computation starts at the later of the two
  const firstWeek =
    m.first === 'infinity' ? target : /^\d{4}-\d{2}-\d{2}$/.test(m.first) ? mondayOf(m.first) : earliest;
  const from = invalidFrom < firstWeek ? minDay(firstWeek, target) : invalidFrom;
  const until = from < target ? minDay(target, addDays(from, 7 * Math.max(1, chunkWeeks))) : target;
  if (keep)
    await client.query(`DELETE FROM insights_project_weeks WHERE ws >= $1::date OR ws < $2::date`, [
      invalidFrom,
      earliest,
    ]);
  else await client.query(`DELETE FROM insights_project_weeks`);
  for (const table of [
    'insights_env_weeks',
    'insights_env_project_weeks',
    'insights_metric_weeks',
    'insights_user_totals_weeks',
  ])
    if (keep)
      await client.query(`DELETE FROM ${table} WHERE ws >= $1::date OR ws < $2::date`, [
        invalidFrom,
        earliest,
      ]);
    else await client.query(`DELETE FROM ${table}`);
  if (from < until) {
    // the reference computation as of the Sunday before the current week, of the closed weeks from `from` to
    // the Sunday before `until` (a week's figures depend on events up to its end, not on where the span ends)
    const params = [addDays(target, -1), from, addDays(until, -1), from];
    await client.query(
      `INSERT INTO insights_project_weeks (ws, project, total, stale, ps)
       SELECT ws::date, project, total, stale, ps FROM (${PROJECT_FLAGS_SQL}) x`,
      [...params, []],
    );
    // the SDK metrics and the users of the weeks stored, computed as the report does
    await client.query(
      `INSERT INTO insights_metric_weeks (ws, project, yes, no, apps, flags, envs)
       SELECT ws::date, project, yes, no, apps, flags, envs FROM (${METRICS_SQL}) x`,
      [...params, []],
    );
    await client.query(
      `INSERT INTO insights_user_totals_weeks (ws, total, active)
       SELECT ws::date, total, active FROM (${USERS_SQL}) x`,
      params,
    );
    // environment updates of the weeks stored (their types are joined at read time)
    await client.query(
      `INSERT INTO insights_env_project_weeks (ws, environment, project, n)
       SELECT date_trunc('week', day)::date, environment, project, sum(n) FROM insights_env_project_updates
        WHERE day >= $1::date AND day < $2::date GROUP BY 1, 2, 3`,
      [from, until],
    );
    await client.query(
      `INSERT INTO insights_env_weeks (ws, environment, n)
       SELECT ws, environment, sum(n) FROM insights_env_project_weeks WHERE ws >= $1::date GROUP BY 1, 2`,
      [from],
    );
  }
  // every project's sums before the current week: where the computed weeks' running sums start
  await client.query(`DELETE FROM insights_project_base`);
  await client.query(
    `INSERT INTO insights_project_base (project, total, stale, ps)
     SELECT project, sum(t), sum(s), sum(ps) FROM (
       SELECT project, d_total AS t, d_stale AS s, 0 AS ps FROM insights_flag_deltas WHERE day < $1::date
       UNION ALL
       SELECT f.project, 0, 0, f.d_fresh
         FROM insights_flag_deltas f JOIN feature_types ft ON ft.id = f.type AND ft.lifetime_days > 0
        WHERE GREATEST(f.day, f.created_day + ft.lifetime_days) < $1::date) x
      GROUP BY project`,
    [target],
  );
  await client.query(
    `UPDATE insights_weeks_stored SET valid_from = $1, valid_until = $2, base_at = $3, first_day = $4`,
    [earliest, until, target, m.first],
  );
  return from < until ? Math.round((Date.parse(until) - Date.parse(from)) / WEEK_MS) : 0;
}
