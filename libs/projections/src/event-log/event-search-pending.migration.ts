import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The free-text search's trigram index takes each batch's entries into its pending list and merges them into
 * the index when the list outgrows `gin_pending_list_limit`: at Postgres's 4 MB, every few hundred events, each
 * merge touching most of the index's keys. 64 MB merges many batches at once (Postgres CPU per ingested event
 * 98 → 75 µs: `npm run bench -- --ingest-only --events 300000`, one run at this migration's commit and one at the
 * commit before it); a search reads the list too, unsorted, which costs it milliseconds.
 */
export class EventSearchPending1763800004900 implements MigrationInterface {
  name = 'EventSearchPending1763800004900';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER INDEX event_log_search_text_trgm_idx SET (gin_pending_list_limit = 65536)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER INDEX event_log_search_text_trgm_idx RESET (gin_pending_list_limit)`);
  }
}
