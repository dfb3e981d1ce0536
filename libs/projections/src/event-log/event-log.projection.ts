import type { PoolClient } from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { pipeline } from 'node:stream/promises';
import { Readable } from 'node:stream';
import type { FlagEvent } from '@flaglens/contract';
import type { SourcedEvent } from '../projection';
import { toWireJson } from './event-wire';
import { arrayLiteral, CopyTextWriter } from './copy-text';
import { searchTexts } from './search-text';
import { searchCountDeltas } from './search-counts.logic';

const COLUMNS =
  'id, created_at, type, feature_name, project, environment, created_by, created_by_user_id, known_type, body, source_topic, source_partition, source_offset, other_projects, group_type, group_id, data_text, tags_text, pre_data_text';

export const EVENT_LOG_COPY_COLUMNS = COLUMNS;

/**
 * Event-log rows `from` to `to` (exclusive) in COPY text format (the columns of EVENT_LOG_COPY_COLUMNS), as
 * one UTF-8 Buffer; the body is the raw value when there is one, else the wire JSON, and the texts the event
 * search matches (search-text.ts) follow it. A raw body without
 * special bytes is copied as it is, so the projector neither re-serialises the event nor encodes its JSON to
 * UTF-8 again; the other fields are written into the buffer one by one, with no string made per row.
 */
export function eventLogCopyChunk(events: SourcedEvent[], from = 0, to = events.length): Buffer {
  let size = 0;
  for (let i = from; i < to; i++) size += (events[i].raw?.length ?? 1024) + 256;
  const w = new CopyTextWriter(size);
  for (let i = from; i < to; i++) {
    const s = events[i];
    const e = s.event;
    w.field(e.id);
    w.field(e.createdAt);
    w.field(e.type);
    w.field(e.featureName);
    w.field(e.project);
    w.field(e.environment);
    w.field(e.createdBy);
    w.field(e.createdByUserId);
    w.field(s.knownType);
    const raw = s.raw;
    if (raw === undefined) w.field(toWireJson(e));
    else w.utf8(raw);
    w.field(s.topic);
    w.field(s.partition);
    w.field(s.offset);
    w.field(e.type === 'feature-project-change' ? arrayLiteral(otherProjects(e)) : null);
    w.field(e.groupType ?? null);
    w.field(e.groupId ?? null);
    const texts = searchTexts(e);
    w.field(texts.data);
    w.field(texts.tags);
    w.field(texts.preData);
    w.endRow();
  }
  return w.bytes();
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
 * The events with ids not seen before in the list: the first occurrence (lowest offset) wins. Ids that only
 * ascend (the common batch) cannot repeat, and the list is returned as it is, without a set of its ids.
 */
export function firstOfEachId(events: SourcedEvent[]): SourcedEvent[] {
  let ascending = true;
  for (let i = 1; i < events.length && ascending; i++)
    ascending = events[i].event.id > events[i - 1].event.id;
  if (ascending) return events;
  const seen = new Set<number>();
  return events.filter((s) => (seen.has(s.event.id) ? false : (seen.add(s.event.id), true)));
}

/**
 * Appends events to the log, each id at most once. Runs inside the caller's transaction.
 * Fast path: one COPY straight into the table. If an id is already stored (a producer sent it twice,
 * or another partition stored it), fall back to COPY into a temp staging table and insert only what is new.
 * Returns the events that were newly stored (aggregates must change only for those). `log` is the table
 * appended to: a read as of an instant that starts from a checkpoint appends to a log of its own (as-of.ts).
 * `counts: false` (a replay as of an instant): the log's counts (`event_counts`, `event_log_days`,
 * `event_search_counts`) are not kept, since no read as of an instant reads them (docs/design.md, "Reads as of
 * an instant").
 */
export async function appendEvents(
  client: PoolClient,
  events: SourcedEvent[],
  log = 'event_log',
  { counts = true }: { counts?: boolean } = {},
): Promise<SourcedEvent[]> {
  if (events.length === 0) return [];
  const unique = firstOfEachId(events);

  await client.query('SAVEPOINT event_log_copy');
  let copied = false;
  try {
    await copyInto(client, log, unique);
    await client.query('RELEASE SAVEPOINT event_log_copy');
    copied = true;
  } catch (e) {
    await client.query('ROLLBACK TO SAVEPOINT event_log_copy');
    if ((e as { code?: string }).code !== '23505') throw e;
  }
  if (copied) {
    if (counts) await countLog(client, unique);
    await recordRelease(client, unique);
    return unique;
  }
  // per transaction: the version (schema) behind `event_log` may change between batches
  await client.query(
    `CREATE TEMP TABLE IF NOT EXISTS event_log_staging (LIKE ${log} INCLUDING DEFAULTS) ON COMMIT DROP`,
  );
  await copyInto(client, 'event_log_staging', unique);
  const inserted = await client.query<{ id: string }>(
    `INSERT INTO ${log} (${COLUMNS}) SELECT ${COLUMNS} FROM event_log_staging ORDER BY source_offset NULLS FIRST
     ON CONFLICT (id) DO NOTHING RETURNING id`,
  );
  await client.query('TRUNCATE event_log_staging');
  const newIds = new Set(inserted.rows.map((r) => Number(r.id)));
  const stored = unique.filter((s) => newIds.has(s.event.id));
  if (counts) await countLog(client, stored);
  await recordRelease(client, stored);
  return stored;
}

/** The newly stored events counted: per set of named projects, per day and partition, per search filter. */
async function countLog(client: PoolClient, stored: SourcedEvent[]): Promise<void> {
  await countStored(client, stored);
  await countDays(client, stored);
  await countSearchable(client, stored);
}

/**
 * The release line of the newest (highest id) newly stored event whose message said it, kept in
 * `unleash_release` unless an event with a higher id said otherwise before: partitions may apply their
 * batches in any order, and ids follow Unleash's sequence, so the highest id is the latest word. A replay
 * stores no event twice and so changes nothing.
 *
 * The row is written only when the word changes (an upgrade): Unleash's releases only move forward with its
 * ids, so a batch saying the release already kept has nothing to add, and its transaction takes no lock on
 * the row (an upsert locks the row it meets even when its WHERE is false, which would make every
 * transaction of a connector-fed topic wait for the one before it). `event_id` is the event that said it.
 */
async function recordRelease(client: PoolClient, stored: SourcedEvent[]): Promise<void> {
  let newest: SourcedEvent | undefined;
  for (const s of stored)
    if (s.release !== undefined && (newest === undefined || s.event.id > newest.event.id)) newest = s;
  if (newest === undefined) return;
  await client.query(
    `INSERT INTO unleash_release AS r (release, event_id)
     SELECT $1, $2 WHERE NOT EXISTS (SELECT 1 FROM unleash_release WHERE release = $1)
     ON CONFLICT (only_row) DO UPDATE SET release = EXCLUDED.release, event_id = EXCLUDED.event_id,
       recorded_at = now() WHERE r.event_id < EXCLUDED.event_id`,
    [newest.release, newest.event.id],
  );
}

/**
 * The projects an event names, sorted: its own, and for a flag's move the project it left and the one it
 * joined. A caller who may not see one of them does not see the event (nor count it).
 */
export function namedProjects(e: Pick<FlagEvent, 'type' | 'project' | 'data'>): string[] {
  const names = new Set<string>();
  if (e.project) names.add(e.project);
  if (e.type === 'feature-project-change' && e.data) {
    for (const k of ['oldProject', 'newProject']) {
      const v = e.data[k];
      if (typeof v === 'string' && v !== '') names.add(v);
    }
  }
  return [...names].sort();
}

/** The projects an event names besides its own (a flag's move: the project it left or joined). */
export function otherProjects(e: Pick<FlagEvent, 'type' | 'project' | 'data'>): string[] {
  return namedProjects(e).filter((p) => p !== e.project);
}

/**
 * How many events the log holds per set of named projects (`event_counts`), so the instance list's total for
 * any visibility set is a sum over a few rows, not a count over the whole log.
 */
async function countStored(client: PoolClient, stored: SourcedEvent[]): Promise<void> {
  if (stored.length === 0) return;
  // most events name their own project alone: counted by it first, its key built once per project
  const byProject = new Map<string | null, number>();
  const counts = new Map<string, number>();
  for (const s of stored) {
    const e = s.event;
    if (e.type === 'feature-project-change') {
      const k = JSON.stringify(namedProjects(e));
      counts.set(k, (counts.get(k) ?? 0) + 1);
    } else byProject.set(e.project, (byProject.get(e.project) ?? 0) + 1);
  }
  for (const [project, n] of byProject) {
    const k = JSON.stringify(project ? [project] : []);
    counts.set(k, (counts.get(k) ?? 0) + n);
  }
  // sorted, so two partitions' transactions lock shared rows in the same order
  const keys = [...counts.keys()].sort();
  await client.query(
    `INSERT INTO event_counts AS c (names, n)
     SELECT ARRAY(SELECT json_array_elements_text(k::json)), n
       FROM unnest($1::text[], $2::bigint[]) AS t(k, n)
     ON CONFLICT (names) DO UPDATE SET n = c.n + EXCLUDED.n`,
    [keys, keys.map((k) => counts.get(k)!)],
  );
}

/**
 * The newly stored events added to `event_log_days` (per UTC day of `created_at` and source partition), in the
 * batch's transaction. Postgres reads each instant from the same text the log's COPY gave it, so an event is
 * counted in the day its stored `created_at` falls in; sorted, so two partitions' transactions lock shared rows
 * in the same order.
 */
async function countDays(client: PoolClient, stored: SourcedEvent[]): Promise<void> {
  if (stored.length === 0) return;
  await client.query(
    `INSERT INTO event_log_days AS d (day, source_partition, n)
     SELECT (t::timestamptz AT TIME ZONE 'UTC')::date, p, count(*)
       FROM unnest($1::text[], $2::int[]) AS u(t, p) GROUP BY 1, 2 ORDER BY 1, 2
     ON CONFLICT (day, source_partition) DO UPDATE SET n = d.n + EXCLUDED.n`,
    [stored.map((s) => s.event.createdAt), stored.map((s) => s.partition ?? -1)],
  );
}

/**
 * The newly stored events added to `event_search_counts` (search-counts.logic.ts), in the batch's transaction:
 * each event is counted exactly when it is stored, so a replay adds nothing.
 */
async function countSearchable(client: PoolClient, stored: SourcedEvent[]): Promise<void> {
  if (stored.length === 0) return;
  const deltas = searchCountDeltas(stored.map((s) => s.event));
  if (deltas.size === 0) return;
  // sorted, so two partitions' transactions lock shared rows in the same order
  const keys = [...deltas.keys()].sort();
  const rows = keys.map((k) => JSON.parse(k) as [string, string, string, string, boolean]);
  await client.query(
    `INSERT INTO event_search_counts AS c (dim, value, value2, day, with_project, n)
     SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::date[], $5::boolean[], $6::bigint[])
     ON CONFLICT (dim, value, value2, day, with_project) DO UPDATE SET n = c.n + EXCLUDED.n`,
    [
      rows.map((r) => r[0]),
      rows.map((r) => r[1]),
      rows.map((r) => r[2]),
      rows.map((r) => r[3]),
      rows.map((r) => r[4]),
      keys.map((k) => deltas.get(k)!),
    ],
  );
}
