import type { DeadLetterWithMessage } from './dead-letters.read-model';
import type { DeadLetter, DeadLetterDetail, DeadLetterSummary } from './operations.types';

/** The longest key or value the console is sent, in characters (base64: in bytes, 3/4 of it). */
export const MAX_MESSAGE_CHARS = 64 * 1024;

/** A message's key or value as text: UTF-8, else `base64:`…; cut at MAX_MESSAGE_CHARS. Pure. */
export function messageText(buf: Buffer | null): { text: string | null; bytes: number; truncated: boolean } {
  if (buf === null) return { text: null, bytes: 0, truncated: false };
  const s = buf.toString('utf8');
  if (!Buffer.from(s, 'utf8').equals(buf)) {
    const cut = buf.length > (MAX_MESSAGE_CHARS * 3) / 4;
    return {
      text: `base64:${buf.subarray(0, (MAX_MESSAGE_CHARS * 3) / 4).toString('base64')}`,
      bytes: buf.length,
      truncated: cut,
    };
  }
  return { text: s.slice(0, MAX_MESSAGE_CHARS), bytes: buf.length, truncated: s.length > MAX_MESSAGE_CHARS };
}

/** A dead letter in the operations answer's `latest` list. */
export function deadLetterSummary(d: DeadLetter): DeadLetterSummary {
  return {
    id: d.id,
    partition: d.partition,
    offset: d.offset,
    reasonCode: d.reasonCode,
    reason: d.reason,
    eventId: d.eventId,
    createdAt: d.createdAt,
    redrivenAt: d.redrivenAt,
  };
}

/** One dead letter with its message, as the console shows it. */
export function deadLetterDetail(d: DeadLetterWithMessage): DeadLetterDetail {
  const value = messageText(d.value);
  return {
    ...deadLetterSummary(d),
    topic: d.topic,
    redriveOutcome: d.redriveOutcome,
    key: messageText(d.key).text,
    value: value.text,
    valueBytes: value.bytes,
    truncated: value.truncated,
  };
}
