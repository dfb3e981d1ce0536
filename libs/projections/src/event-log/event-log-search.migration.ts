import { MigrationInterface, QueryRunner } from 'typeorm';
import { searchTexts } from './search-text';

/** Rows read and rewritten per statement while the texts of stored events are filled in. */
const BACKFILL_ROWS = 5_000;

/**
 * The event search (`GET /api/admin/search/events`): the texts its free-text `query` matches
 * (`data_text`, `tags_text`, `pre_data_text`, as Unleash casts its columns: search-text.ts), each with a
 * trigram GIN index (pg_trgm, in `public` so every projection version's schema shares it) that answers
 * `ILIKE '%…%'`; and an index per filtered column in the answer's order (`created_at DESC, id DESC`), so a
 * filtered page is read from the index. Stored events' texts are computed in Node from their bodies.
 */
export class EventLogSearch1763800004600 implements MigrationInterface {
  name = 'EventLogSearch1763800004600';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE EXTENSION IF NOT EXISTS pg_trgm SCHEMA public`);
    await q.query(
      `ALTER TABLE event_log ADD COLUMN data_text text NULL, ADD COLUMN tags_text text NULL,
         ADD COLUMN pre_data_text text NULL`,
    );
    await backfillSearchTexts((sql, params) => q.query(sql, params));
    for (const c of ['data_text', 'tags_text', 'pre_data_text'])
      await q.query(`CREATE INDEX event_log_${c}_trgm_idx ON event_log USING gin (${c} public.gin_trgm_ops)`);
    for (const c of ['type', 'project', 'environment', 'created_by_user_id', 'group_id'])
      await q.query(`CREATE INDEX event_log_${c}_created_idx ON event_log (${c}, created_at DESC, id DESC)`);
  }

  async down(q: QueryRunner): Promise<void> {
    for (const c of ['type', 'project', 'environment', 'created_by_user_id', 'group_id'])
      await q.query(`DROP INDEX event_log_${c}_created_idx`);
    await q.query(
      `ALTER TABLE event_log DROP COLUMN data_text, DROP COLUMN tags_text, DROP COLUMN pre_data_text`,
    );
  }
}

/**
 * Fills in the search texts of every stored event from its body, in batches of BACKFILL_ROWS by id (the
 * migration's; exported for its test).
 */
export async function backfillSearchTexts(
  query: (sql: string, params: unknown[]) => Promise<{ id: string; body: string }[]>,
): Promise<void> {
  for (let after = -1; ;) {
    const rows: { id: string; body: string }[] = await query(
      `SELECT id, body FROM event_log WHERE id > $1 ORDER BY id LIMIT ${BACKFILL_ROWS}`,
      [after],
    );
    if (rows.length === 0) break;
    const texts = rows.map((r) => {
      try {
        return searchTexts(JSON.parse(r.body) as Record<string, unknown>);
      } catch {
        return { data: null, tags: '[]', preData: null }; // a body that is not JSON has nothing to match
      }
    });
    await query(
      `UPDATE event_log e SET data_text = t.d, tags_text = t.t, pre_data_text = t.p
         FROM unnest($1::bigint[], $2::text[], $3::text[], $4::text[]) AS t(id, d, t, p) WHERE e.id = t.id`,
      [
        rows.map((r) => r.id),
        texts.map((t) => t.data),
        texts.map((t) => t.tags),
        texts.map((t) => t.preData),
      ],
    );
    after = Number(rows[rows.length - 1].id);
  }
}
