import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A flag's closed spans of being enabled, one row each (`lifecycle_enable_spans`), out of its lifecycle row:
 * that row was rewritten whole, with every span of the flag's history, by each batch with one of its events (a
 * flag toggled 17,000 times: a row of a megabyte, and its dead copies). The row keeps the spans still open.
 * The spans of no length are left out: they make no flag live. Keyed by their instants: the read asks, per
 * flag and environment, for the spans up to an instant (`LIFECYCLE_LIVE_SPAN_SQL`), from this key alone.
 */
export class LifecycleEnableSpans1763800005500 implements MigrationInterface {
  name = 'LifecycleEnableSpans1763800005500';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE lifecycle_enable_spans (
        feature_name text        NOT NULL,
        environment  text        NOT NULL,
        from_at      timestamptz NOT NULL,
        to_at        timestamptz NOT NULL,
        PRIMARY KEY (feature_name, environment, from_at, to_at)
      )`);
    await q.query(`
      INSERT INTO lifecycle_enable_spans (feature_name, environment, from_at, to_at)
      SELECT l.name, s->>'environment', (s->>'from')::timestamptz, (s->>'to')::timestamptz
        FROM lifecycle_flags l, jsonb_array_elements(l.enables) s
       WHERE s->>'to' IS NOT NULL AND (s->>'to')::timestamptz > (s->>'from')::timestamptz
      ON CONFLICT DO NOTHING`);
    await q.query(`
      UPDATE lifecycle_flags l
         SET enables = (SELECT coalesce(jsonb_agg(s ORDER BY o), '[]') FROM jsonb_array_elements(l.enables)
                          WITH ORDINALITY AS e(s, o) WHERE s->>'to' IS NULL)
       WHERE jsonb_path_exists(l.enables, '$[*] ? (@.to != null)')`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      UPDATE lifecycle_flags l
         SET enables = (SELECT coalesce(jsonb_agg(x.s ORDER BY x.from_at), '[]') FROM (
                          SELECT jsonb_build_object('environment', sp.environment,
                                   'from', to_char(sp.from_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
                                   'to', to_char(sp.to_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')) AS s,
                                 sp.from_at
                            FROM lifecycle_enable_spans sp WHERE sp.feature_name = l.name
                          UNION ALL
                          SELECT e.s, (e.s->>'from')::timestamptz FROM jsonb_array_elements(l.enables) e(s)) x)`);
    await q.query(`DROP TABLE lifecycle_enable_spans`);
  }
}
