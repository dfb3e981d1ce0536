import { mapDebeziumChange, parseEvent, type DeadLetterCode, type EventFormat } from '@flaglens/contract';
import type { SourcedEvent } from '@flaglens/projections';

export interface IncomingMessage {
  offset: number;
  key: Buffer | null;
  value: Buffer | null;
  /** The Unleash release line the connector read the event from (header `flaglens-unleash-release`). */
  release?: string;
}

export interface DeadLetter {
  topic: string;
  partition: number;
  offset: number;
  key: Buffer | null;
  value: Buffer | null;
  /** a contract code, or why an event that passed validation could not be applied */
  code: DeadLetterCode | 'db-rejected' | 'projection-error';
  reason: string;
  eventId: number | null;
}

export interface ClassifyOptions {
  allowUnknownTypes: boolean;
  maxBytes: number;
  /**
   * What the topic carries (EVENT_FORMAT): the contract's events (`unleash`, the default) or Debezium's change
   * events of Unleash's `events` table (`debezium`: mapped first; tombstones skipped; updates, deletes and
   * whatever is not an insert dead-lettered with the reason).
   */
  format?: EventFormat;
}

export interface Classified {
  accepted: SourcedEvent[];
  dead: DeadLetter[];
}

// Postgres text cannot hold U+0000; an event whose indexed string fields carry it is rejected here
// (inside data/preData JSON.stringify escapes it, which is fine).
// eslint-disable-next-line no-control-regex
const NULS = /\u0000/g;

const hasNul = (s: string | null): boolean => s !== null && s.indexOf('\u0000') !== -1;

/** Text that Postgres can store: U+0000 written as the escape `\\u0000`. */
export const storableText = (s: string): string => s.replace(NULS, '\\u0000');

/** What an operator accepted by re-driving a dead letter: any type, any size (the contract still holds). */
export const REDRIVEN_OPTIONS: Omit<ClassifyOptions, 'format'> = {
  allowUnknownTypes: true,
  maxBytes: Number.MAX_SAFE_INTEGER,
};

/**
 * Splits raw messages into accepted events and dead letters. Pure: never throws, never does I/O. A message at
 * an offset `redriven` names (a dead letter an operator re-drove) is read with `REDRIVEN_OPTIONS`, so a
 * replay keeps what the re-drive accepted.
 */
export function classifyMessages(
  topic: string,
  partition: number,
  messages: IncomingMessage[],
  opts: ClassifyOptions,
  redriven?: (offset: number) => boolean,
): Classified {
  const accepted: SourcedEvent[] = [];
  const dead: DeadLetter[] = [];
  for (const m of messages) {
    const o = redriven?.(m.offset) ? REDRIVEN_OPTIONS : opts;
    let value = m.value;
    if (opts.format === 'debezium') {
      const d = mapDebeziumChange(m.value);
      if (d.kind === 'tombstone' || d.kind === 'unchanged') continue;
      if (d.kind === 'rejected') {
        dead.push({
          ...position(topic, partition, m),
          code: d.code,
          reason: storableText(d.reason),
          eventId: null,
        });
        continue;
      }
      value = Buffer.from(d.value); // the event in the contract's wire shape: what is validated and stored
    }
    const r = parseEvent(value, { allowUnknownTypes: o.allowUnknownTypes, maxBytes: o.maxBytes });
    if (r.ok) {
      const e = r.event;
      if (
        hasNul(e.type) ||
        hasNul(e.createdBy) ||
        hasNul(e.featureName) ||
        hasNul(e.project) ||
        hasNul(e.environment)
      ) {
        dead.push({
          ...position(topic, partition, m),
          code: 'invalid-field',
          reason: 'a string field contains U+0000',
          eventId: e.id,
        });
        continue;
      }
      // the value itself is stored as the body (parseEvent accepted it: a Buffer of valid UTF-8 JSON)
      accepted.push({
        event: e,
        knownType: r.knownType,
        topic,
        partition,
        offset: m.offset,
        raw: value ?? undefined,
        ...(m.release === undefined ? {} : { release: m.release }),
      });
    } else {
      dead.push({
        ...position(topic, partition, m),
        code: r.code,
        reason: storableText(r.reason),
        eventId: null,
      });
    }
  }
  return { accepted, dead };
}

function position(topic: string, partition: number, m: IncomingMessage) {
  return { topic, partition, offset: m.offset, key: m.key, value: m.value };
}
