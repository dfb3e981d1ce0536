import {
  isDebeziumChange,
  isDebeziumRowKey,
  mapDebeziumChange,
  parseEvent,
  type DeadLetterCode,
  type EventFormat,
} from '@flaglens/contract';
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
  /**
   * A message that shows the topic is set up in a way flaglens cannot project correctly (`topicSetupProblem`):
   * nothing of the batch may be applied, and the consumer stops with `reason`, which names the fix.
   */
  refused?: { offset: number; reason: string };
}

const REPARTITION =
  'point Debezium at a topic of its own with one partition and run `flaglens source debezium --from <that topic>`, ' +
  'which writes it to KAFKA_TOPIC keyed by flag (docs/debezium.md, "Per-flag order: repartition")';

/**
 * Why a message shows that the topic is set up in a way flaglens cannot project correctly, naming the fix;
 * null when it shows nothing wrong. Pure. The setups docs/debezium.md calls unsupported:
 * - Debezium's changes fed straight to KAFKA_TOPIC (keyed by the row's `{"id": …}`, or keyed otherwise than
 *   by the flag): one flag's events are spread over the partitions, and read out of order;
 * - Debezium's changes on a topic read with EVENT_FORMAT=unleash: every event would be dead-lettered.
 */
export function topicSetupProblem(
  format: EventFormat,
  key: Buffer | null,
  value: Buffer | null,
  mapped?: { key: string; contract?: true },
): string | null {
  if (format === 'debezium') {
    if (isDebeziumRowKey(key))
      return (
        `KAFKA_TOPIC receives Debezium's change events straight from Kafka Connect (keyed by the row's id, ` +
        `${JSON.stringify(key!.toString('utf8').slice(0, 80))}): one flag's events are spread over the partitions ` +
        `and would be projected out of order. Nothing was projected from them; ${REPARTITION}`
      );
    if (mapped && !mapped.contract && (key === null || key.toString('utf8') !== mapped.key))
      return (
        `a Debezium change on KAFKA_TOPIC is keyed ${key === null ? 'by nothing' : JSON.stringify(key.toString('utf8').slice(0, 80))}, ` +
        `not by its flag (${JSON.stringify(mapped.key)}): one flag's events may be spread over the partitions. ` +
        `Nothing was projected from it; ${REPARTITION}`
      );
    return null;
  }
  if (isDebeziumChange(value))
    return (
      `KAFKA_TOPIC carries Debezium's change events of Unleash's events table, and EVENT_FORMAT is ${format}: ` +
      `set EVENT_FORMAT=debezium and ${REPARTITION}. Nothing was projected from them`
    );
  return null;
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
 * Splits raw messages into accepted events and dead letters, or refuses the batch (`refused`, nothing else) at
 * a message that shows the topic is misconfigured (`topicSetupProblem`). Pure: never throws, never does I/O. A message at
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
  const format = opts.format ?? 'unleash';
  const refuse = (m: IncomingMessage, reason: string): Classified => ({
    accepted: [],
    dead: [],
    refused: { offset: m.offset, reason },
  });
  for (const m of messages) {
    const o = redriven?.(m.offset) ? REDRIVEN_OPTIONS : opts;
    let value = m.value;
    if (format === 'debezium') {
      const d = mapDebeziumChange(m.value);
      if (d.kind === 'tombstone' || d.kind === 'unchanged') continue;
      const problem = topicSetupProblem(format, m.key, m.value, d.kind === 'event' ? d : undefined);
      if (problem !== null) return refuse(m, problem);
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
      // only a message the contract refuses can be a sign of a misconfigured topic: nothing on the hot path
      const problem = format === 'debezium' ? null : topicSetupProblem(format, m.key, m.value);
      if (problem !== null) return refuse(m, problem);
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
