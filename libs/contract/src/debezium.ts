import { eventKey, INSTANCE_EVENT_KEY } from './event-key';

/**
 * Debezium change events of Unleash's `events` table, mapped to the contract's event (docs/debezium.md).
 *
 * Accepted forms of a message value (Kafka Connect's JsonConverter, with or without `schemas.enable`):
 * - the full envelope: `{before, after, source, op, ts_ms}`; `op` `c` (insert) or `r` (snapshot read) is an event;
 * - the row flattened by `io.debezium.transforms.ExtractNewRecordState`: the columns themselves, optionally with
 *   `__op` (`add.fields=op`) and `__deleted` (`delete.tombstone.handling.mode=rewrite`).
 * Either may be wrapped as `{schema, payload}`; the schema is then used to read `created_at`'s encoding.
 * An event already in the contract's shape (camelCase `createdAt`: SDK usage from `source unleash --sdk-only`,
 * which shares the topic) is taken as it is; the contract's validation follows in the projector.
 *
 * Columns are Unleash's (snake_case). `created_at` comes in any of Debezium's temporal encodings:
 * `io.debezium.time.ZonedTimestamp` (an ISO string: `timestamptz`, Unleash's column), `MicroTimestamp`,
 * `NanoTimestamp`, `io.debezium.time.Timestamp` or Connect's `Timestamp` (numbers since the epoch; without a
 * schema the unit is told by the magnitude). `data`, `pre_data` and `tags` are `io.debezium.data.Json`
 * strings (parsed objects are taken as they are).
 *
 * The value produced is the wire shape of `GET /api/admin/events/{flag}` that our own connector produces
 * (same key order, `createdAt` in UTC with milliseconds, `tags` `[]` when null, Unleash 7+'s `group_type` and
 * `group_id` as `groupType`, `groupId` only when set), so the projector stores the same body whichever way an
 * event came.
 */
export type DebeziumMapping =
  /** A row of `events` inserted (or read by the snapshot): the contract's event. */
  | {
      kind: 'event';
      id: number;
      key: string;
      value: string;
      /** the value was already a contract event (SDK usage sharing the topic), not a row of `events` */
      contract?: true;
    }
  /** A tombstone (null value, after a delete): nothing to apply. */
  | { kind: 'tombstone' }
  /**
   * An update that leaves every column of the contract as it was: Unleash's event announcer sets
   * `announced = true` on each row once it has emitted it. Seen only when the envelope carries the row
   * before (`REPLICA IDENTITY FULL`, infra/connect/unleash-events.setup.sql); nothing to apply.
   */
  | { kind: 'unchanged'; id: number }
  /**
   * Not an event: an update, a delete or a truncate (Unleash never does them to `events`), or a value that is
   * not a Debezium change of `events`. `key` is the contract's key of the row when one can be told.
   */
  | { kind: 'rejected'; code: DebeziumRejectCode; reason: string; key: string };

export type DebeziumRejectCode = 'unsupported-change' | 'malformed-json' | 'not-an-object' | 'invalid-field';

type Row = Record<string, unknown>;

const OPS: Record<string, string> = {
  c: 'insert',
  r: 'snapshot read',
  u: 'update',
  d: 'delete',
  t: 'truncate',
  m: 'message',
};

const isObject = (v: unknown): v is Row => typeof v === 'object' && v !== null && !Array.isArray(v);

/** `{schema, payload}` (JsonConverter with schemas.enable) → the payload and its schema. */
function unwrap(v: Row): { payload: unknown; schema: Row | null } {
  if ('payload' in v && 'schema' in v && Object.keys(v).length === 2)
    return { payload: v.payload, schema: isObject(v.schema) ? v.schema : null };
  return { payload: v, schema: null };
}

/** The struct schema's field `name`, e.g. `after` or `created_at`. */
function field(schema: Row | null, name: string): Row | null {
  const fields = schema?.fields;
  if (!Array.isArray(fields)) return null;
  const f = fields.find((x) => isObject(x) && x.field === name);
  return isObject(f) ? f : null;
}

/** The contract's key of a row, or `instance` when it names neither a flag nor a project. */
function rowKey(row: Row | null): string {
  if (!row) return INSTANCE_EVENT_KEY;
  const s = (v: unknown) => (typeof v === 'string' ? v : null);
  return eventKey({ featureName: s(row.feature_name), project: s(row.project) });
}

const ISO_PARTS = /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(?:\.(\d+))?(Z|[+-]\d\d:?\d\d)?$/;

/**
 * `created_at` in UTC with milliseconds (truncated, as Postgres's `to_char(…, 'MS')` and node-postgres's
 * `Date` do), or an error.
 */
export function debeziumTimestamp(v: unknown, schemaName?: string | null): string | { error: string } {
  if (typeof v === 'string') {
    // ZonedTimestamp: `2026-11-23T22:00:00.123456Z` (or with an offset); fractions of any length
    const m = ISO_PARTS.exec(v.trim().replace(' ', 'T'));
    if (!m) return { error: `created_at ${JSON.stringify(v)} is not a timestamp` };
    const ms = (m[2] ?? '').padEnd(3, '0').slice(0, 3);
    const zone = m[3] ?? 'Z';
    const d = new Date(`${m[1]}.${ms}${zone === 'Z' ? 'Z' : zone.replace(/^([+-]\d\d)(\d\d)$/, '$1:$2')}`);
    if (Number.isNaN(d.getTime())) return { error: `created_at ${JSON.stringify(v)} is not a timestamp` };
    return d.toISOString();
  }
  if (typeof v === 'number' && Number.isFinite(v)) {
    let ms: number;
    switch (schemaName) {
      case 'io.debezium.time.NanoTimestamp':
        ms = Math.floor(v / 1e6);
        break;
      case 'io.debezium.time.MicroTimestamp':
        ms = Math.floor(v / 1e3);
        break;
      case 'io.debezium.time.Timestamp':
      case 'org.apache.kafka.connect.data.Timestamp':
        ms = v;
        break;
      default: {
        // no schema: the unit by the magnitude (years 1973 to 5138 in ms; µs and ns are 10^3, 10^6 larger)
        const a = Math.abs(v);
        ms = a >= 1e17 ? Math.floor(v / 1e6) : a >= 1e14 ? Math.floor(v / 1e3) : v;
      }
    }
    const d = new Date(ms);
    if (Number.isNaN(d.getTime())) return { error: `created_at ${v} is out of range` };
    return d.toISOString();
  }
  return { error: `created_at is ${v === null ? 'null' : typeof v}, not a Debezium timestamp` };
}

/** An `io.debezium.data.Json` column: its JSON text parsed (an object already parsed is kept). */
function jsonColumn(row: Row, column: string): { ok: true; value: unknown } | { ok: false; reason: string } {
  const v = row[column];
  if (v === undefined || v === null) return { ok: true, value: null };
  if (typeof v !== 'string') return { ok: true, value: v };
  try {
    return { ok: true, value: JSON.parse(v) };
  } catch {
    return { ok: false, reason: `${column} is not valid JSON (io.debezium.data.Json)` };
  }
}

/** The columns of `events` that make the contract's event (`announced`, `ip` are not in it). */
const EVENT_COLUMNS = [
  'id',
  'type',
  'created_by',
  'created_at',
  'created_by_user_id',
  'data',
  'pre_data',
  'tags',
  'feature_name',
  'project',
  'environment',
  'group_type',
  'group_id',
];

function sameEvent(before: Row, after: Row): boolean {
  return EVENT_COLUMNS.every((c) => JSON.stringify(before[c] ?? null) === JSON.stringify(after[c] ?? null));
}

/** A row of `events` (snake_case) → the wire JSON of the event (keys in the reference's order). */
function rowToEvent(row: Row, createdAtSchema: string | null): DebeziumMapping {
  const key = rowKey(row);
  const reject = (reason: string): DebeziumMapping => ({
    kind: 'rejected',
    code: 'invalid-field',
    reason,
    key,
  });
  const id = row.id;
  if (typeof id !== 'number' || !Number.isSafeInteger(id)) return reject('the row has no integer id');
  const createdAt = debeziumTimestamp(row.created_at, createdAtSchema);
  if (typeof createdAt !== 'string') return reject(createdAt.error);
  const parsed: Record<string, unknown> = {};
  for (const c of ['data', 'pre_data', 'tags']) {
    const j = jsonColumn(row, c);
    if (!j.ok) return reject(j.reason);
    parsed[c] = j.value;
  }
  const event: Record<string, unknown> = {
    id,
    type: row.type,
    createdBy: row.created_by,
    createdAt,
    createdByUserId: row.created_by_user_id ?? null,
    data: parsed.data,
    preData: parsed.pre_data,
    tags: parsed.tags ?? [],
    featureName: row.feature_name ?? null,
    project: row.project ?? null,
    environment: row.environment ?? null,
  };
  // Unleash 7+'s transaction group: omitted when null or empty, as Unleash answers it (6.x has no such columns)
  if (row.group_type !== undefined && row.group_type !== null && row.group_type !== '')
    event.groupType = row.group_type;
  if (row.group_id !== undefined && row.group_id !== null && row.group_id !== '')
    event.groupId = row.group_id;
  return { kind: 'event', id, key, value: JSON.stringify(event) };
}

function parseValue(value: Buffer | string): { row: Row } | { rejected: DebeziumMapping } {
  let parsed: unknown;
  try {
    parsed = JSON.parse(typeof value === 'string' ? value : value.toString('utf8'));
  } catch {
    return {
      rejected: {
        kind: 'rejected',
        code: 'malformed-json',
        reason: 'not a JSON value',
        key: INSTANCE_EVENT_KEY,
      },
    };
  }
  if (!isObject(parsed))
    return {
      rejected: {
        kind: 'rejected',
        code: 'not-an-object',
        reason: 'a Debezium change event is a JSON object',
        key: INSTANCE_EVENT_KEY,
      },
    };
  return { row: parsed };
}

/**
 * Maps one Debezium message value (envelope or flattened) of Unleash's `events` table. Pure, never throws.
 */
export function mapDebeziumChange(value: Buffer | string | null | undefined): DebeziumMapping {
  if (value === null || value === undefined || value.length === 0) return { kind: 'tombstone' };
  const parsed = parseValue(value);
  if ('rejected' in parsed) return parsed.rejected;
  const { payload, schema } = unwrap(parsed.row);
  if (payload === null) return { kind: 'tombstone' };
  if (!isObject(payload))
    return {
      kind: 'rejected',
      code: 'not-an-object',
      reason: 'the payload is not an object',
      key: INSTANCE_EVENT_KEY,
    };

  // the full envelope
  if (typeof payload.op === 'string' && ('after' in payload || 'before' in payload)) {
    const op = payload.op;
    const after = isObject(payload.after) ? payload.after : null;
    const before = isObject(payload.before) ? payload.before : null;
    if (op === 'c' || op === 'r') {
      if (!after)
        return {
          kind: 'rejected',
          code: 'invalid-field',
          reason: `op "${op}" without an after row`,
          key: INSTANCE_EVENT_KEY,
        };
      const afterSchema = field(schema, 'after');
      const createdAt = field(afterSchema, 'created_at');
      return rowToEvent(after, typeof createdAt?.name === 'string' ? createdAt.name : null);
    }
    if (op === 'u' && before && after && sameEvent(before, after) && typeof after.id === 'number')
      return { kind: 'unchanged', id: after.id };
    const what = OPS[op] ?? `op "${op}"`;
    const row = after ?? before;
    const id = row && typeof row.id === 'number' ? ` of event ${row.id}` : '';
    return {
      kind: 'rejected',
      code: 'unsupported-change',
      reason: `${what}${id} in Unleash's events table: Unleash only inserts events (an ${what} is not an event)`,
      key: rowKey(row),
    };
  }

  // an event of the contract itself (SDK usage from `source unleash --sdk-only` shares the topic): as it is
  if ('createdAt' in payload && !('created_at' in payload) && schema === null) {
    const s = (v: unknown) => (typeof v === 'string' ? v : null);
    return {
      kind: 'event',
      id: typeof payload.id === 'number' ? payload.id : 0,
      key: eventKey({ featureName: s(payload.featureName), project: s(payload.project) }),
      value: typeof value === 'string' ? value : value.toString('utf8'),
      contract: true,
    };
  }

  // the flattened row (ExtractNewRecordState)
  if ('id' in payload && 'type' in payload) {
    const deleted = payload.__deleted === true || payload.__deleted === 'true';
    const op = typeof payload.__op === 'string' ? payload.__op : deleted ? 'd' : 'c';
    if (op !== 'c' && op !== 'r') {
      const what = OPS[op] ?? `op "${op}"`;
      const id = typeof payload.id === 'number' ? ` of event ${payload.id}` : '';
      return {
        kind: 'rejected',
        code: 'unsupported-change',
        reason: `${what}${id} in Unleash's events table: Unleash only inserts events (an ${what} is not an event)`,
        key: rowKey(payload),
      };
    }
    const createdAt = field(schema, 'created_at');
    return rowToEvent(payload, typeof createdAt?.name === 'string' ? createdAt.name : null);
  }
  return {
    kind: 'rejected',
    code: 'invalid-field',
    reason:
      'neither a Debezium envelope (op, before, after) nor a flattened row of Unleash events (id, type)',
    key: INSTANCE_EVENT_KEY,
  };
}

/**
 * True for a message key as Debezium writes it: the row's primary key as JSON (`{"id": 42}`, or with
 * Kafka Connect's schema `{"schema": …, "payload": {"id": 42}}`). The contract's keys (a flag's or a project's
 * name, or `instance`) are never JSON objects.
 */
export function isDebeziumRowKey(key: Buffer | string | null | undefined): boolean {
  if (key === null || key === undefined || key.length === 0) return false;
  const text = typeof key === 'string' ? key : key.toString('utf8');
  if (!text.trimStart().startsWith('{')) return false;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return false;
  }
  if (!isObject(parsed)) return false;
  const { payload } = unwrap(parsed);
  return isObject(payload) && 'id' in payload;
}

/**
 * True for a value that is a Debezium change of Unleash's `events` (the envelope, or the row flattened by
 * ExtractNewRecordState, with or without Kafka Connect's schema): what a topic fed by Kafka Connect carries,
 * never a contract event (whose time is `createdAt`, not the column `created_at`).
 */
export function isDebeziumChange(value: Buffer | string | null | undefined): boolean {
  if (value === null || value === undefined || value.length === 0) return false;
  let parsed: unknown;
  try {
    parsed = JSON.parse(typeof value === 'string' ? value : value.toString('utf8'));
  } catch {
    return false;
  }
  if (!isObject(parsed)) return false;
  const { payload } = unwrap(parsed);
  if (!isObject(payload)) return false;
  const envelope =
    typeof payload.op === 'string' && ('after' in payload || 'before' in payload) && isObject(payload.source);
  const flattened = 'id' in payload && 'type' in payload && 'created_at' in payload;
  return envelope || flattened;
}

/** What a topic carries (EVENT_FORMAT): the contract's events, or Debezium's change events of `events`. */
export type EventFormat = 'unleash' | 'debezium';
export const EVENT_FORMATS: readonly EventFormat[] = Object.freeze(['unleash', 'debezium']);
