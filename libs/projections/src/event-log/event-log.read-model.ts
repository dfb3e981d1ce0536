import type { ReadPool } from '@flaglens/persistence';

export interface FlagEventList {
  /** JSON array elements, already serialised, newest first (createdAt desc, then id desc). */
  eventsJson: string;
  total: number;
}

/**
 * Reads of the event log. The JSON of each event is stored pre-serialised and the list is assembled in
 * SQL, so Node never decodes the rows (DESIGN: reads). Named statements are planned once per connection.
 */
export class EventLogReadModel {
  constructor(private readonly db: ReadPool) {}

  /** Every event of the flag (exact, case-sensitive name), leaving out events of the `hidden` projects. */
  async eventsOfFlag(featureName: string, hidden: string[] = []): Promise<FlagEventList> {
    // Postgres text cannot hold U+0000, so no stored flag has it in its name (the projector rejects them)
    if (featureName.includes('\u0000')) return { total: 0, eventsJson: '' };
    const r = await this.db.pool().query<{ total: number; events: string | null }>({
      name: 'flaglens-events-of-flag',
      text: `SELECT count(*)::int AS total, string_agg(body, ',' ORDER BY created_at DESC, id DESC) AS events
               FROM event_log WHERE feature_name = $1 AND (project IS NULL OR project <> ALL($2::text[]))`,
      values: [featureName, hidden],
    });
    return { total: r.rows[0]?.total ?? 0, eventsJson: r.rows[0]?.events ?? '' };
  }

  /** The newest `limit` events of the whole instance (but the `hidden` projects'), and how many there are. */
  async latestEvents(limit: number, hidden: string[] = []): Promise<FlagEventList> {
    const r = await this.db.pool().query<{ total: number; events: string | null }>({
      name: 'flaglens-latest-events',
      text: `SELECT (SELECT count(*)::int FROM event_log WHERE project IS NULL OR project <> ALL($2::text[])) AS total,
                    (SELECT string_agg(body, ',' ORDER BY created_at DESC, id DESC)
                       FROM (SELECT body, created_at, id FROM event_log WHERE project IS NULL OR project <> ALL($2::text[])
                              ORDER BY created_at DESC, id DESC LIMIT $1) t) AS events`,
      values: [limit, hidden],
    });
    return { total: r.rows[0]?.total ?? 0, eventsJson: r.rows[0]?.events ?? '' };
  }
}
