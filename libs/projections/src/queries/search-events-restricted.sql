-- search-events-restricted: GET /api/admin/search/events?project=IS:sim-project-1&query=flag&from=IS:2026-11-01&to=IS:2026-11-10, not a root Admin
-- rendered by libs/projections/src/queries/queries.int-spec.ts; do not edit

SELECT reltuples::float8 AS n FROM pg_class WHERE oid = to_regclass('event_log');

SELECT (COALESCE(data_text, '') || E'\n' || COALESCE(tags_text, '') || E'\n' || COALESCE(pre_data_text, '')) FROM event_log TABLESAMPLE SYSTEM ($1) WHERE type NOT IN ('client-metrics', 'client-register') LIMIT $2;

WITH m AS MATERIALIZED (SELECT id, created_at FROM event_log WHERE type NOT IN ('client-metrics', 'client-register') AND project = ANY($1::text[]) AND created_at >= $2::timestamptz AND created_at < $3::timestamptz AND (data_text ILIKE $4 OR tags_text ILIKE $4 OR pre_data_text ILIKE $4) AND project IS NOT NULL AND project <> ALL($5::text[]) AND (other_projects IS NULL OR NOT other_projects && $5::text[]) AND (COALESCE(data_text, '') || E'\n' || COALESCE(tags_text, '') || E'\n' || COALESCE(pre_data_text, '')) ILIKE $6)
               SELECT (SELECT count(*) FROM m) AS total,
                      (SELECT array_agg(e.body ORDER BY p.created_at DESC, p.id DESC)
                         FROM (SELECT id, created_at FROM m ORDER BY created_at DESC, id DESC
                                LIMIT $7 OFFSET $8) p
                         JOIN event_log e ON e.id = p.id) AS bodies;
