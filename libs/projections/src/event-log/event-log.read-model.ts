import type { ReadPool } from '@flaglens/persistence';
import { wireFromStored } from './event-wire';

export interface FlagEventList {
  /** JSON array elements, already serialised, newest first (createdAt desc, then id desc). */
  eventsJson: string;
  total: number;
}

/** The list's JSON array elements from the stored bodies (in the list's order). */
const wireList = (bodies: string[]): string => bodies.map(wireFromStored).join(',');

/**
 * Reads of the event log. Each event's body is stored as the projector received it; its wire JSON (the
 * reference's key order and defaults) is rendered here, once per list the api builds: the api keeps the
 * lists it serves until the projector changes them, so the projector's ingest, not the read, avoids the
 * second serialisation. Rows come back as plain text arrays; named statements are planned once per connection.
 */
export class EventLogReadModel {
  constructor(private readonly db: ReadPool) {}

  /** Every event of the flag (exact, case-sensitive name), leaving out events of the `hidden` projects. */
  async eventsOfFlag(featureName: string, hidden: string[] = []): Promise<FlagEventList> {
    // Postgres text cannot hold U+0000, so no stored flag has it in its name (the projector rejects them)
    if (featureName.includes('\u0000')) return { total: 0, eventsJson: '' };
    const r = await this.db.pool().query<string[]>({
      name: 'flaglens-events-of-flag',
      text: `SELECT body FROM event_log WHERE feature_name = $1 AND (project IS NULL OR project <> ALL($2::text[]))
              ORDER BY created_at DESC, id DESC`,
      values: [featureName, hidden],
      rowMode: 'array',
    });
    return { total: r.rows.length, eventsJson: wireList(r.rows.map((row) => row[0])) };
  }

  /** The newest `limit` events of the whole instance (but the `hidden` projects'), and how many there are. */
  async latestEvents(limit: number, hidden: string[] = []): Promise<FlagEventList> {
    const r = await this.db.pool().query<{ total: number; bodies: string[] | null }>({
      name: 'flaglens-latest-events',
      text: `SELECT (SELECT count(*)::int FROM event_log WHERE project IS NULL OR project <> ALL($2::text[])) AS total,
                    (SELECT array_agg(body ORDER BY created_at DESC, id DESC)
                       FROM (SELECT body, created_at, id FROM event_log WHERE project IS NULL OR project <> ALL($2::text[])
                              ORDER BY created_at DESC, id DESC LIMIT $1) t) AS bodies`,
      values: [limit, hidden],
    });
    const bodies = r.rows[0]?.bodies ?? [];
    return { total: r.rows[0]?.total ?? 0, eventsJson: wireList(bodies) };
  }
}
