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
  /**
   * The message value as received: the UTF-8 JSON that `event` was parsed and validated from. When present
   * it is stored as the event's body byte for byte (no second serialisation on the projector's busiest
   * thread); the wire form is rendered from it when the event list is read (`wireFromStored`). Without it
   * (events built in code) the body is the wire JSON.
   */
  raw?: Buffer;
}

const COLUMNS =
  'id, created_at, type, feature_name, project, environment, created_by, created_by_user_id, known_type, body, source_topic, source_partition, source_offset';

/** The body's COPY field: JSON text has no raw tab, newline or carriage return, so only backslashes double. */
const copyJson = (json: string): string => (json.indexOf('\\') === -1 ? json : json.replace(/\\/g, '\\\\'));

export const EVENT_LOG_COPY_COLUMNS = COLUMNS;

const BACKSLASH = 0x5c;
const TAB = 0x09;
const LF = 0x0a;
const CR = 0x0d;

/** Whether raw JSON bytes hold a byte COPY text treats specially (a backslash, or whitespace tab/LF/CR). */
const needsEscape = (b: Buffer): boolean =>
  b.indexOf(BACKSLASH) !== -1 || b.indexOf(LF) !== -1 || b.indexOf(TAB) !== -1 || b.indexOf(CR) !== -1;

/**
 * Event-log rows `from` to `to` (exclusive) in COPY text format (the columns of EVENT_LOG_COPY_COLUMNS), as
 * one UTF-8 Buffer; the body is the raw value when there is one, else the wire JSON. A raw body without special bytes is copied as it is, so the projector
 * neither re-serialises the event nor encodes its JSON to UTF-8 again.
 */
export function eventLogCopyChunk(events: SourcedEvent[], from = 0, to = events.length): Buffer {
  let size = 0;
  for (let i = from; i < to; i++) size += (events[i].raw?.length ?? 1024) + 256;
  let buf = Buffer.allocUnsafe(size);
  let len = 0;
  const room = (n: number) => {
    if (len + n <= buf.length) return;
    const bigger = Buffer.allocUnsafe(Math.max(buf.length * 2, len + n));
    buf.copy(bigger, 0, 0, len);
    buf = bigger;
  };
  // a UTF-16 code unit is at most 3 bytes of UTF-8: with that room `write` never truncates
  const text = (t: string) => {
    room(t.length * 3);
    len += buf.write(t, len, 'utf8');
  };
  // field by field into the buffer, delimiters as bytes: no per-row string is built (it would be garbage)
  const field = (v: string | number | boolean | null) => {
    if (v === null) {
      room(2);
      buf[len++] = BACKSLASH;
      buf[len++] = 0x4e; // N
    } else text(typeof v === 'string' ? copyField(v) : String(v));
  };
  const byte = (b: number) => {
    room(1);
    buf[len++] = b;
  };
  for (let i = from; i < to; i++) {
    const s = events[i];
    const e = s.event;
    field(e.id);
    byte(TAB);
    field(e.createdAt);
    byte(TAB);
    field(e.type);
    byte(TAB);
    field(e.featureName);
    byte(TAB);
    field(e.project);
    byte(TAB);
    field(e.environment);
    byte(TAB);
    field(e.createdBy);
    byte(TAB);
    field(e.createdByUserId);
    byte(TAB);
    field(s.knownType);
    byte(TAB);
    const raw = s.raw;
    if (raw === undefined) text(copyJson(toWireJson(e)));
    else if (needsEscape(raw)) text(copyField(raw.toString('utf8')));
    else {
      room(raw.length);
      len += raw.copy(buf, len);
    }
    byte(TAB);
    field(s.topic);
    byte(TAB);
    field(s.partition);
    byte(TAB);
    field(s.offset);
    byte(LF);
  }
  return buf.subarray(0, len);
}

/** Rows per chunk of COPY data: Postgres parses one chunk while the next is built. */
const CHUNK_ROWS = 256;

function* chunks(events: SourcedEvent[]): Generator<Buffer> {
  for (let i = 0; i < events.length; i += CHUNK_ROWS)
    yield eventLogCopyChunk(events, i, Math.min(i + CHUNK_ROWS, events.length));
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
