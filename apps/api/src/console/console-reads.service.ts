import { Injectable } from '@nestjs/common';
import { wireFromStored } from '@flaglens/projections';
import { ProjectionReads } from '../read-db/projection-reads.service';

/** An event the caller may see: as the event lists' rule (names no hidden project, $2). */
const VISIBLE = `(project IS NULL OR project <> ALL($2::text[])) AND (other_projects IS NULL OR NOT other_projects && $2::text[])`;

export interface FlagName {
  name: string;
  project: string;
  archived: boolean;
}

export interface EventPage {
  /** the events' wire JSON, newest first */
  eventsJson: string;
  /** every visible event of the flag (first page only; null on later pages) */
  total: number | null;
  /** the cursor of the next (older) page; null at the end */
  next: string | null;
}

/**
 * The console's small reads, beside the api's documented ones: flag names for the search's suggestions,
 * a flag's events one page at a time (keyset on the event list's order, so a 100k-event flag is read a page
 * at a time), and the visible projects. Every one leaves out what the caller may not see.
 */
@Injectable()
export class ConsoleReads {
  constructor(private readonly reads: ProjectionReads) {}

  /** Flags whose name contains `q` (case-insensitive), names starting with it first; at most `limit`. */
  async flagNames(q: string, hidden: string[], limit: number): Promise<FlagName[]> {
    const r = await this.reads.pool().query<{ name: string; project: string; archived: boolean }>(
      `SELECT name, project, archived_at IS NOT NULL AS archived FROM flag_state
        WHERE NOT deleted AND project <> ALL($2::text[]) AND strpos(lower(name), lower($1)) > 0
        ORDER BY strpos(lower(name), lower($1)) = 1 DESC, name LIMIT $3`,
      [q, hidden, limit],
    );
    return r.rows;
  }

  async eventPage(
    featureName: string,
    hidden: string[],
    cursor: Cursor | null,
    limit: number,
  ): Promise<EventPage> {
    const pool = this.reads.pool();
    const values: unknown[] = [featureName, hidden, limit + 1];
    // the cursor's time in microseconds since the epoch: exact, and no text a timestamp parser could refuse
    const after = cursor
      ? `AND (created_at, id) < (timestamptz 'epoch' + $4::bigint * interval '1 microsecond', $5::bigint)`
      : '';
    if (cursor) values.push(cursor.at, cursor.id);
    const rows = await pool.query<{ body: string; at: string; id: string }>(
      `SELECT body, (extract(epoch FROM created_at) * 1000000)::bigint::text AS at, id::text AS id FROM event_log
        WHERE feature_name = $1 AND ${VISIBLE} ${after} ORDER BY created_at DESC, id DESC LIMIT $3`,
      values,
    );
    const page = rows.rows.slice(0, limit);
    const last = page.at(-1);
    const total = cursor
      ? null
      : Number(
          (
            await pool.query<{ n: string }>(
              `SELECT count(*) AS n FROM event_log WHERE feature_name = $1 AND ${VISIBLE}`,
              [featureName, hidden],
            )
          ).rows[0].n,
        );
    return {
      eventsJson: page.map((r) => wireFromStored(r.body)).join(','),
      total,
      next: rows.rows.length > limit && last ? encodeCursor({ at: last.at, id: last.id }) : null,
    };
  }

  /** The projects that exist and the caller may see, by id. */
  async projects(hidden: string[]): Promise<{ id: string; name: string | null }[]> {
    const r = await this.reads
      .pool()
      .query<{ id: string; name: string | null }>(
        `SELECT id, name FROM projects WHERE exists AND archived_at IS NULL AND id <> ALL($1::text[]) ORDER BY id`,
        [hidden],
      );
    return r.rows;
  }
}

export interface Cursor {
  /** createdAt of the page's last event, microseconds since the epoch (decimal) */
  at: string;
  id: string;
}

export function encodeCursor(c: Cursor): string {
  return Buffer.from(JSON.stringify([c.at, c.id]), 'utf8').toString('base64url');
}

/** A cursor from the client; null when absent, undefined when malformed. */
export function decodeCursor(v: unknown): Cursor | null | undefined {
  if (v === undefined || v === '') return null;
  if (typeof v !== 'string' || v.length > 200) return undefined;
  try {
    const [at, id] = JSON.parse(Buffer.from(v, 'base64url').toString('utf8')) as unknown[];
    const digits = (v: unknown): v is string => typeof v === 'string' && /^-?\d{1,17}$/.test(v);
    if (!digits(at) || !digits(id) || id.startsWith('-')) return undefined;
    return { at, id };
  } catch {
    return undefined;
  }
}
