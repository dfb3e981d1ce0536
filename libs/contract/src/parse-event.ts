import { isUtf8 } from 'node:buffer';
import { normaliseDateTime } from './date-time';
import { DEFAULT_MAX_EVENT_BYTES, MAX_EVENT_DEPTH, MAX_PARSER_MESSAGE_LENGTH } from './event-limits';
import { fastValidateEvent } from './feature-event.fast-validator';
import { validateFeatureEventWithDto } from './feature-event.validation';
import type { EventTag, FlagEvent } from './flag-event';
import { formatIssues } from './validation-issues';

/** Why a message value was dead-lettered. */
export type DeadLetterCode =
  | 'empty'
  | 'too-large'
  | 'too-deep'
  | 'malformed-json'
  | 'not-an-object'
  | 'invalid-field'
  | 'unknown-type'
  /** EVENT_FORMAT=debezium: an update, delete or truncate of Unleash's events table (never an event) */
  | 'unsupported-change';

/** Every dead-letter code, e.g. for a metric label or a CLI filter. */
export const DEAD_LETTER_CODES: readonly DeadLetterCode[] = Object.freeze([
  'empty',
  'too-large',
  'too-deep',
  'malformed-json',
  'not-an-object',
  'invalid-field',
  'unknown-type',
  'unsupported-change',
]);

export type ParseResult =
  { ok: true; event: FlagEvent; knownType: boolean } | { ok: false; code: DeadLetterCode; reason: string };

export interface ParseEventOptions {
  /**
   * Accept an event whose `type` is outside api-spec part 6 (and is otherwise valid); it comes back with
   * `knownType: false`. Default false: such an event is rejected with code `unknown-type`.
   */
  allowUnknownTypes?: boolean;
  /** Largest value accepted, in bytes (UTF-8). Default 1 MiB (1048576). */
  maxBytes?: number;
}

function fail(code: DeadLetterCode, reason: string): ParseResult {
  return { ok: false, code, reason };
}

function errorMessage(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

function describeJsonValue(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  return `a ${typeof v}`;
}

/**
 * Whether a JSON text has at most `limit` opening brackets, in strings or not: then it cannot nest deeper than
 * `limit`. Counted by `indexOf` (native), cheaper than `jsonDepthBeyond`'s walk of every character.
 */
export function bracketsAtMost(text: string, limit: number): boolean {
  let n = 0;
  for (const open of ['{', '['])
    for (let i = text.indexOf(open); i !== -1; i = text.indexOf(open, i + 1)) if (++n > limit) return false;
  return true;
}

/**
 * The nesting depth of a JSON text, counted without parsing it (brackets outside strings), stopping as soon
 * as it passes `limit`: the depth reached, or 0 when it stays within the limit. Bytes or UTF-16 code units
 * alike: every character that matters is ASCII.
 */
export function jsonDepthBeyond(text: Uint8Array | string, limit: number): number {
  const bytes = typeof text !== 'string';
  const n = text.length;
  let depth = 0;
  let inString = false;
  for (let i = 0; i < n; i++) {
    const c = bytes ? (text as Uint8Array)[i] : (text as string).charCodeAt(i);
    if (inString) {
      if (c === 0x5c /* \ */) i++;
      else if (c === 0x22 /* " */) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b /* { */ || c === 0x5b /* [ */) {
      if (++depth > limit) return depth;
    } else if (c === 0x7d /* } */ || c === 0x5d /* ] */) depth--;
  }
  return 0;
}

function tooLarge(bytes: number | string, max: number): ParseResult {
  return fail('too-large', `value is ${bytes} bytes, more than the limit of ${max} bytes`);
}

/**
 * The event as `parseEvent` returns it: every field present, in the reference's wire order. Also renders a
 * stored event body (validated when it was accepted) back into that form.
 */
export function toFlagEvent(o: Record<string, unknown>): FlagEvent {
  const event: FlagEvent = {
    id: o.id as number,
    type: o.type as string,
    createdBy: o.createdBy as string,
    createdAt: normaliseDateTime(o.createdAt as string),
    createdByUserId: (o.createdByUserId ?? null) as number | null,
    data: (o.data ?? null) as Record<string, unknown> | null,
    preData: (o.preData ?? null) as Record<string, unknown> | null,
    tags: (o.tags ?? null) as EventTag[] | null,
    featureName: (o.featureName ?? null) as string | null,
    project: (o.project ?? null) as string | null,
    environment: (o.environment ?? null) as string | null,
  };
  // Unleash 7+'s transaction group, omitted when not set (as the reference does); a stored body accepted
  // before the contract had these fields may hold anything under those keys: only text is kept
  if (typeof o.groupType === 'string' && o.groupType !== '') event.groupType = o.groupType;
  if (typeof o.groupId === 'string' && o.groupId !== '') event.groupId = o.groupId;
  return event;
}

function parseUnsafe(value: unknown, options: ParseEventOptions | undefined): ParseResult {
  const maxBytes =
    typeof options?.maxBytes === 'number' && options.maxBytes >= 0
      ? options.maxBytes
      : DEFAULT_MAX_EVENT_BYTES;

  // 1. empty (a Kafka tombstone has a null value)
  if (value === null || value === undefined)
    return fail('empty', `value is ${value === null ? 'null' : 'undefined'}`);

  // 2. size, before JSON.parse; 3. JSON
  let text: string;
  if (typeof value === 'string') {
    if (value.length === 0) return fail('empty', 'value is an empty string');
    // A UTF-16 code unit takes 1 to 3 bytes in UTF-8, so count bytes only when it can matter.
    if (value.length > maxBytes) return tooLarge(`at least ${value.length}`, maxBytes);
    if (value.length * 3 > maxBytes) {
      const bytes = Buffer.byteLength(value, 'utf8');
      if (bytes > maxBytes) return tooLarge(bytes, maxBytes);
    }
    text = value;
  } else if (value instanceof Uint8Array) {
    if (value.length === 0) return fail('empty', 'value is empty (0 bytes)');
    if (value.length > maxBytes) return tooLarge(value.length, maxBytes);
    if (!isUtf8(value)) return fail('malformed-json', 'value is not valid UTF-8');
    const buf = Buffer.isBuffer(value)
      ? value
      : Buffer.from(value.buffer, value.byteOffset, value.byteLength);
    text = buf.toString('utf8');
  } else {
    return fail('malformed-json', `value is ${typeof value}, not a string or a buffer`);
  }

  // 3a. nesting depth, before anything walks the value recursively (the scan only when the brackets could
  // nest that deep: with no more of them than the limit, they cannot)
  if (!bracketsAtMost(text, MAX_EVENT_DEPTH) && jsonDepthBeyond(text, MAX_EVENT_DEPTH) > 0)
    return fail('too-deep', `value nests more than ${MAX_EVENT_DEPTH} levels deep (the limit)`);

  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (e) {
    return fail('malformed-json', `malformed JSON: ${errorMessage(e).slice(0, MAX_PARSER_MESSAGE_LENGTH)}`);
  }

  // 4. a JSON object
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    return fail('not-an-object', `expected a JSON object, got ${describeJsonValue(parsed)}`);
  }
  const obj = parsed as Record<string, unknown>;

  // 5. the contract
  const verdict = fastValidateEvent(obj);
  if (verdict.ok) return { ok: true, event: toFlagEvent(obj), knownType: true };
  if (verdict.onlyUnknownType) {
    if (options?.allowUnknownTypes === true) return { ok: true, event: toFlagEvent(obj), knownType: false };
    return fail('unknown-type', `unknown event type ${JSON.stringify(obj.type)}`);
  }
  // Rejected: class-validator words the reason (it checks the same rules, see the fast validator).
  let reason: string;
  try {
    const { issues } = validateFeatureEventWithDto(obj);
    reason = issues.length > 0 ? formatIssues(issues) : `${verdict.problem}: invalid value`;
  } catch (e) {
    reason = `${verdict.problem}: invalid value (${errorMessage(e).slice(0, MAX_PARSER_MESSAGE_LENGTH)})`;
  }
  return fail('invalid-field', reason);
}

/**
 * Parses and validates one message value against the event contract. Never throws.
 *
 * Checks, in order: empty (null, undefined, zero length) -> `empty`; more than `maxBytes` bytes ->
 * `too-large`; not valid UTF-8 -> `malformed-json`; nested more than `MAX_EVENT_DEPTH` levels -> `too-deep`;
 * not JSON -> `malformed-json`; not a JSON object -> `not-an-object`;
 * fails the contract (FeatureEventDto) -> `invalid-field`, with one `path: message` per failed
 * constraint; the only problem is a `type` outside api-spec part 6 -> `unknown-type`, or accepted with
 * `knownType: false` when `allowUnknownTypes` is set.
 *
 * An accepted event has all eleven fields (missing nullable ones are null), `groupType` and `groupId` when
 * set (absent when missing or null), `createdAt` normalised to `toISOString()`, `data`/`preData`/`tags`
 * exactly as parsed, and no other keys.
 */
export function parseEvent(
  value: Buffer | string | null | undefined,
  options?: ParseEventOptions,
): ParseResult {
  try {
    return parseUnsafe(value, options);
  } catch (e) {
    return fail(
      'invalid-field',
      `unexpected error while validating: ${errorMessage(e).slice(0, MAX_PARSER_MESSAGE_LENGTH)}`,
    );
  }
}
