import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The environment and type pair of `event_search_counts` computed from the stored log, as the projector keeps it
 * from then on (search-counts.logic.ts): per UTC day, environment and type, and whether the event has a project,
 * how many searchable events there are. A search on an environment and a type then sums its `total` from these
 * rows instead of counting the log (at 1 million events 751 ms at p99, reading every event of the environment).
 */
export const ENVIRONMENT_TYPE_COUNTS_FROM_LOG = `
  INSERT INTO event_search_counts (dim, value, value2, day, with_project, n)
  SELECT 'environment+type', e.environment, e.type, (e.created_at AT TIME ZONE 'UTC')::date, e.project IS NOT NULL,
         count(*)
    FROM event_log e
   WHERE e.type NOT IN ('client-metrics', 'client-register') AND e.environment IS NOT NULL
   GROUP BY 2, 3, 4, 5`;

export class EventSearchEnvironmentType1763800005100 implements MigrationInterface {
  name = 'EventSearchEnvironmentType1763800005100';

  async up(q: QueryRunner): Promise<void> {
    await q.query(ENVIRONMENT_TYPE_COUNTS_FROM_LOG);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DELETE FROM event_search_counts WHERE dim = 'environment+type'`);
  }
}
