import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The event search's rows `event_search_counts` computed from the stored log: per UTC day of `created_at`, per
 * value of one filtered column (`dim`; '' for every event; `project+type`: each pair, the type in `value2`) and
 * whether the event has a project, how many
 * searchable events (not SDK traffic) there are. The projector keeps them from then on
 * (search-counts.logic.ts); the bench fills them with this after its bulk copy.
 */
export const SEARCH_COUNTS_FROM_LOG = `
  INSERT INTO event_search_counts (dim, value, value2, day, with_project, n)
  SELECT d.dim, d.value, d.value2, (e.created_at AT TIME ZONE 'UTC')::date, e.project IS NOT NULL, count(*)
    FROM event_log e
   CROSS JOIN LATERAL (VALUES ('', '', ''), ('type', e.type, ''), ('project', e.project, ''),
                              ('environment', e.environment, ''), ('created_by_user_id', e.created_by_user_id::text, ''),
                              ('project+type', e.project, e.type)) AS d(dim, value, value2)
   WHERE e.type NOT IN ('client-metrics', 'client-register') AND d.value IS NOT NULL
   GROUP BY 1, 2, 3, 4, 5`;

/** One trigram index over the three texts of the free-text search, joined (the search repeats this expression). */
export const SEARCH_TEXT_INDEX = `CREATE INDEX event_log_search_text_trgm_idx ON event_log USING gin
  ((COALESCE(data_text, '') || E'\\n' || COALESCE(tags_text, '') || E'\\n' || COALESCE(pre_data_text, ''))
   public.gin_trgm_ops)`;

const TEXT_INDEXES = ['data_text', 'tags_text', 'pre_data_text'].map((c) => `event_log_${c}_trgm_idx`);

/**
 * The event search's speed (docs/performance-reads.md, "Event search"): `event_search_counts`, the exact counts
 * its `total` sums instead of counting the log (`SEARCH_COUNTS_FROM_LOG`), and one trigram index over the three
 * texts in place of one per text (one condition for the planner, and a third of the index upkeep per event).
 */
export class EventSearchSpeed1763800004700 implements MigrationInterface {
  name = 'EventSearchSpeed1763800004700';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE event_search_counts (
        dim          text    NOT NULL,
        value        text    NOT NULL,
        value2       text    NOT NULL,
        day          date    NOT NULL,
        with_project boolean NOT NULL,
        n            bigint  NOT NULL,
        PRIMARY KEY (dim, value, value2, day, with_project)
      )`);
    await q.query(SEARCH_COUNTS_FROM_LOG);
    for (const i of TEXT_INDEXES) await q.query(`DROP INDEX ${i}`);
    await q.query(SEARCH_TEXT_INDEX);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX event_log_search_text_trgm_idx`);
    for (const c of ['data_text', 'tags_text', 'pre_data_text'])
      await q.query(`CREATE INDEX event_log_${c}_trgm_idx ON event_log USING gin (${c} public.gin_trgm_ops)`);
    await q.query(`DROP TABLE event_search_counts`);
  }
}
