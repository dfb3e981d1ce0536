import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import type { Kafka, Message, Producer } from 'kafkajs';
import { eventKey, parseEvent } from '@flaglens/contract';

export interface PublishOptions {
  topic: string;
  /** Send lines that fail validation too (to exercise dead-lettering); they are keyed `instance`. */
  raw?: boolean;
  allowUnknownTypes?: boolean;
  maxBytes?: number;
  chunkSize?: number;
  onProgress?: (sent: number, rejected: number) => void;
}

export interface PublishSummary {
  sent: number;
  rejected: { line: number; reason: string }[];
}

/** Streams an NDJSON file (or stdin) to the topic, keyed by the contract's key; validates each line first. */
export async function publishNdjson(
  kafka: Kafka,
  source: string | Readable,
  opts: PublishOptions,
): Promise<PublishSummary> {
  const producer: Producer = kafka.producer({
    allowAutoTopicCreation: false,
    idempotent: false,
    maxInFlightRequests: 5,
  });
  // connect before opening the input: readline emits lines as soon as it is created, and lines read
  // while an await is pending (before `for await` starts) are lost
  await producer.connect();
  const input =
    typeof source === 'string' ? (source === '-' ? process.stdin : createReadStream(source)) : source;
  const lines = createInterface({ input, crlfDelay: Infinity });
  const summary: PublishSummary = { sent: 0, rejected: [] };
  const chunkSize = opts.chunkSize ?? 1000;
  let pending: Message[] = [];
  const flush = async () => {
    if (pending.length === 0) return;
    await producer.send({ topic: opts.topic, messages: pending, acks: -1 });
    summary.sent += pending.length;
    pending = [];
    opts.onProgress?.(summary.sent, summary.rejected.length);
  };
  try {
    let lineNo = 0;
    for await (const line of lines) {
      lineNo++;
      if (line.trim() === '') continue;
      const parsed = parseEvent(line, { allowUnknownTypes: opts.allowUnknownTypes, maxBytes: opts.maxBytes });
      if (!parsed.ok) {
        summary.rejected.push({ line: lineNo, reason: `${parsed.code}: ${parsed.reason}` });
        if (!opts.raw) continue;
        pending.push({ key: 'instance', value: line });
      } else {
        pending.push({ key: eventKey(parsed.event), value: line });
      }
      if (pending.length >= chunkSize) await flush();
    }
    await flush();
  } finally {
    await producer.disconnect();
  }
  return summary;
}
