import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The stored closed spans of a flag and environment made never to overlap (`mergeSpans`, which the projection
 * applies to every span it stores from now on): the overlapping ones, from a flag's events dated out of order,
 * become one from the first start to the last end. The read then finds the span a sighting meets in two probes
 * of the key (`LIFECYCLE_LIVE_SPAN_SQL`). The stages are the same either way, so there is no way back to undo.
 */
export class LifecycleSpansApart1763800005600 implements MigrationInterface {
  name = 'LifecycleSpansApart1763800005600';

  async up(q: QueryRunner): Promise<void> {
    // islands of overlap: a span starts a new one unless it starts before the latest end of those before it;
    // one statement (a block), so its scratch table lives on the connection that runs it
    await q.query(`
      DO $$
      BEGIN
        CREATE TEMP TABLE lifecycle_spans_merged AS
        WITH x AS (
          SELECT feature_name, environment, from_at, to_at,
                 CASE WHEN from_at < max(to_at) OVER (PARTITION BY feature_name, environment ORDER BY from_at, to_at
                                                      ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING)
                      THEN 0 ELSE 1 END AS starts
            FROM lifecycle_enable_spans),
        g AS (
          SELECT *, sum(starts) OVER (PARTITION BY feature_name, environment ORDER BY from_at, to_at
                                      ROWS UNBOUNDED PRECEDING) AS island
            FROM x)
        SELECT feature_name, environment, min(from_at) AS from_at, max(to_at) AS to_at
          FROM g GROUP BY feature_name, environment, island HAVING count(*) > 1;
        DELETE FROM lifecycle_enable_spans s USING lifecycle_spans_merged m
         WHERE s.feature_name = m.feature_name AND s.environment = m.environment
           AND s.from_at >= m.from_at AND s.from_at < m.to_at;
        INSERT INTO lifecycle_enable_spans (feature_name, environment, from_at, to_at)
        SELECT feature_name, environment, from_at, to_at FROM lifecycle_spans_merged;
        DROP TABLE lifecycle_spans_merged;
      END $$`);
  }

  async down(): Promise<void> {
    // the spans merged are not kept apart anywhere, and the stages read from them are the same
  }
}
