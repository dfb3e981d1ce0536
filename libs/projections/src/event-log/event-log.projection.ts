import type { PoolClient } from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { pipeline } from 'node:stream/promises';
import { Readable } from 'node:stream';
import type { FlagEvent } from '@flaglens/contract';
import { toWireJson } from './event-wire';
import { copyField } from './copy-text';

/** An accepted event with where it came from. */
export interface SourcedEvent {
  event: FlagEvent;
  knownType: boolean;
  topic: string | null;
  partition: number | null;
  offset: number | null;
}

const COLUMNS =
  'id, created_at, type, feature_name, project, environment, created_by, created_by_user_id, known_type, body, source_topic, source_partition, source_offset';

/** The body's COPY field: JSON text has no raw tab, newline or carriage return, so only backslashes double. */
const copyJson = (json: string): string => (json.indexOf('\\') === -1 ? json : json.replace(/\\/g, '\\\\'));

/**
 * One event-log row in COPY text format (also used by the bench's COPY ceiling, so both load the same rows).
 * Written out field by field: this runs for every event on the projector's busiest thread.
 */
export function eventLogCopyRow(s: SourcedEvent): string {
  const e = s.event;
  return (
    `${e.id}\t${copyField(e.createdAt)}\t${copyField(e.type)}\t${copyField(e.featureName)}\t` +
    `${copyField(e.project)}\t${copyField(e.environment)}\t${copyField(e.createdBy)}\t` +
    `${copyField(e.createdByUserId)}\t${s.knownType}\t${copyJson(toWireJson(e))}\t${copyField(s.topic)}\t` +
    `${copyField(s.partition)}\t${copyField(s.offset)}\n`
  );
}

export const EVENT_LOG_COPY_COLUMNS = COLUMNS;

/** Rows per chunk of COPY text: Postgres parses one chunk while the next is built. */
const CHUNK_ROWS = 256;

function* chunks(events: SourcedEvent[]): Generator<string> {
  for (let i = 0; i < events.length; i += CHUNK_ROWS) {
    let out = '';
    for (let k = i; k < Math.min(i + CHUNK_ROWS, events.length); k++) out += eventLogCopyRow(events[k]);
    yield out;
  }
}

async function copyInto(client: PoolClient, table: string, events: SourcedEvent[]): Promise<void> {
  const stream = client.query(copyFrom(`COPY ${table} (${COLUMNS}) FROM STDIN`));
  await pipeline(Readable.from(chunks(events)), stream);
}

/**
 * Appends events to the log, each id at most once. Runs inside the caller's transaction.
 * Fast path: one COPY straight into the table. If an id is already stored (a producer sent it twice,
 * or another partition stored it), fall back to COPY into a temp staging table and insert only what is new.
 * Returns the events that were newly stored (aggregates must change only for those).
 */
export async function appendEvents(client: PoolClient, events: SourcedEvent[]): Promise<SourcedEvent[]> {
  if (events.length === 0) return [];
  // de-duplicate inside the batch: the first occurrence (lowest offset) wins
  const seen = new Set<number>();
  const unique = events.filter((s) => (seen.has(s.event.id) ? false : (seen.add(s.event.id), true)));

  await client.query('SAVEPOINT event_log_copy');
  try {
    await copyInto(client, 'event_log', unique);
    await client.query('RELEASE SAVEPOINT event_log_copy');
    return unique;
  } catch (e) {
    await client.query('ROLLBACK TO SAVEPOINT event_log_copy');
    if ((e as { code?: string }).code !== '23505') throw e;
  }
  // per transaction: the version (schema) behind `event_log` may change between batches
  await client.query(
    `CREATE TEMP TABLE IF NOT EXISTS event_log_staging (LIKE event_log INCLUDING DEFAULTS) ON COMMIT DROP`,
  );
  await copyInto(client, 'event_log_staging', unique);
  const inserted = await client.query<{ id: string }>(
    `INSERT INTO event_log (${COLUMNS}) SELECT ${COLUMNS} FROM event_log_staging ORDER BY source_offset NULLS FIRST
     ON CONFLICT (id) DO NOTHING RETURNING id`,
  );
  await client.query('TRUNCATE event_log_staging');
  const newIds = new Set(inserted.rows.map((r) => Number(r.id)));
  return unique.filter((s) => newIds.has(s.event.id));
}
