import type { PoolClient } from 'pg';
import type { ReadPool } from '@flaglens/persistence';
import { wireFromStored } from './event-wire';
import { answeringRelease, type UnleashRelease } from '@flaglens/contract';

export interface FlagEventList {
  /** JSON array elements, already serialised, newest first (createdAt desc, then id desc). */
  eventsJson: string;
  total: number;
}

/**
 * An event the caller may see: it names no hidden project ($2), neither as its own nor, for a flag's move,
 * as the project it left or joined.
 */
const VISIBLE = `(project IS NULL OR project <> ALL($2::text[])) AND (other_projects IS NULL OR NOT other_projects && $2::text[])`;

/** A flag's events ($1) that the caller may see, in the list's order. */
const EVENTS_OF_FLAG = `SELECT body FROM event_log WHERE feature_name = $1 AND ${VISIBLE} ORDER BY created_at DESC, id DESC`;

/** The events of several flags ($1, each up to $2 of them), numbered by the flag's place in $1, in the list's order. */
const EVENTS_OF_FLAGS = `SELECT f.n::int, e.body FROM unnest($1::text[]) WITH ORDINALITY AS f(name, n)
  CROSS JOIN LATERAL (SELECT body, created_at, id FROM event_log WHERE feature_name = f.name
                       ORDER BY created_at DESC, id DESC LIMIT $2) e
  ORDER BY f.n, e.created_at DESC, e.id DESC`;

/** The list's JSON array elements from the stored bodies (in the list's order). */
export const wireEvents = (bodies: string[]): string => bodies.map(wireFromStored).join(',');
const wireList = wireEvents;

/**
 * Reads of the event log. Each event's body is stored as the projector received it; its wire JSON (the
 * reference's key order and defaults) is rendered here, once per list the api builds: the api keeps the
 * lists it serves until the projector changes them, so the projector's ingest, not the read, avoids the
 * second serialisation. Rows come back as plain text arrays; named statements are planned once per connection.
 */
export class EventLogReadModel {
  constructor(private readonly db: ReadPool) {}

  /** Every event of the flag (exact, case-sensitive name), leaving out those naming a `hidden` project. */
  async eventsOfFlag(featureName: string, hidden: string[] = []): Promise<FlagEventList> {
    return (await this.firstEventsOfFlag(featureName, hidden, Number.MAX_SAFE_INTEGER))!;
  }

  /**
   * As `eventsOfFlag` when the flag has at most `limit` events (one statement); null when it has more, for
   * the caller to stream them (`openEventsOfFlag`) instead of holding them all.
   */
  async firstEventsOfFlag(
    featureName: string,
    hidden: string[],
    limit: number,
  ): Promise<FlagEventList | null> {
    const bodies = await this.storedEventsOfFlag(featureName, hidden, limit);
    return bodies && { total: bodies.length, eventsJson: wireList(bodies) };
  }

  /**
   * The stored bodies of the flag's events (render them with `wireEvents`) when it has at most `limit` (one
   * named statement, planned once per connection); null when it has more.
   */
  async storedEventsOfFlag(featureName: string, hidden: string[], limit: number): Promise<string[] | null> {
    // Postgres text cannot hold U+0000, so no stored flag has it in its name (the projector rejects them)
    if (featureName.includes('\u0000')) return [];
    const r = await this.db.pool().query<string[]>({
      name: 'flaglens-events-of-flag',
      text: `${EVENTS_OF_FLAG} LIMIT $3`,
      values: [featureName, hidden, Math.min(limit, Number.MAX_SAFE_INTEGER - 1) + 1],
      rowMode: 'array',
    });
    if (r.rows.length > limit) return null;
    return r.rows.map((row) => row[0]);
  }

  /**
   * `storedEventsOfFlag` of several flags for a caller who may see every project, in one named statement:
   * for each name (in order), its stored bodies when it has at most `limit` events, else null.
   */
  async storedEventsOfFlags(featureNames: readonly string[], limit: number): Promise<(string[] | null)[]> {
    // Postgres text cannot hold U+0000: no stored flag has it in its name
    const names = featureNames.map((n) => (n.includes('\u0000') ? '' : n));
    const r = await this.db.pool().query<[number, string]>({
      name: 'flaglens-events-of-flags',
      text: EVENTS_OF_FLAGS,
      values: [names, Math.min(limit, Number.MAX_SAFE_INTEGER - 1) + 1],
      rowMode: 'array',
    });
    const lists: string[][] = names.map(() => []);
    for (const [n, body] of r.rows) lists[n - 1].push(body);
    return lists.map((bodies, i) =>
      featureNames[i].includes('\u0000') ? [] : bodies.length > limit ? null : bodies,
    );
  }

  /**
   * The flag's events as a cursor on `client` (which it puts in a read-only, repeatable-read transaction, so
   * every page is of one snapshot): `next(n)` gives the next page's stored bodies (none when done; render
   * them with `wireEvents`), each page a statement of its own (the pool's statement timeout applies to a
   * page, not to the whole list). `close()` ends the transaction.
   */
  async openEventsOfFlag(
    client: PoolClient,
    featureName: string,
    hidden: string[],
  ): Promise<{ next(n: number): Promise<string[]>; close(): Promise<void> }> {
    await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
    try {
      await client.query({
        text: `DECLARE flaglens_flag_events NO SCROLL CURSOR FOR ${EVENTS_OF_FLAG}`,
        values: [featureName, hidden],
      });
    } catch (e) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw e;
    }
    let open = true;
    return {
      next: async (n) => {
        const r = await client.query<string[]>({
          text: `FETCH ${Math.max(1, Math.floor(n))} FROM flaglens_flag_events`,
          rowMode: 'array',
        });
        return r.rows.map((row) => row[0]);
      },
      close: async () => {
        if (!open) return;
        open = false;
        await client.query('ROLLBACK');
      },
    };
  }

  /**
   * The newest `limit` events of the whole instance (but those naming a `hidden` project), and how many there
   * are (summed from `event_counts`, not counted over the log).
   */
  async latestEvents(limit: number, hidden: string[] = []): Promise<FlagEventList> {
    const r = await this.db.pool().query<{ total: string; bodies: string[] | null }>({
      name: 'flaglens-latest-events',
      text: `SELECT (SELECT COALESCE(sum(n), 0)::bigint FROM event_counts WHERE NOT names && $2::text[]) AS total,
                    (SELECT array_agg(body ORDER BY created_at DESC, id DESC)
                       FROM (SELECT body, created_at, id FROM event_log WHERE ${VISIBLE}
                              ORDER BY created_at DESC, id DESC LIMIT $1) t) AS bodies`,
      values: [limit, hidden],
    });
    const bodies = r.rows[0]?.bodies ?? [];
    return { total: Number(r.rows[0]?.total ?? 0), eventsJson: wireList(bodies) };
  }

  /**
   * The Unleash release the topic last said (`unleash_release`: the release of the highest event id whose
   * message carried it; null when none did) and the one flaglens answers as (that one when supported, else
   * the newest supported). Where the supported releases answer a question differently, answer as this.
   */
  async unleashRelease(): Promise<{ release: string | null; answeringAs: UnleashRelease }> {
    const r = await this.db.pool().query<{ release: string }>({
      name: 'flaglens-unleash-release',
      text: `SELECT release FROM unleash_release`,
    });
    const release = r.rows[0]?.release ?? null;
    return { release, answeringAs: answeringRelease(release) };
  }
}
