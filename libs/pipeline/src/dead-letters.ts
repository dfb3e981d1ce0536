import type { PoolClient } from 'pg';
import { classifyFailure, describeFailure } from '@flaglens/persistence';
import type { SourcedEvent } from '@flaglens/projections';
import { OffsetConflictError } from './batch-transaction';
import { storableText, type DeadLetter } from './classify-messages';

/**
 * A failure that is some event's own doing (see `classifyFailure`): isolate the event, dead-letter it. A moved
 * position is no event's doing: redone event by event it would fail the same way, after a savepoint per event.
 */
export const isDataFailure = (e: unknown): boolean =>
  !(e instanceof OffsetConflictError) && classifyFailure(e) === 'data';

/** The dead-letter code of an event that passed validation but could not be applied. */
export function rejectionCode(e: unknown): 'db-rejected' | 'projection-error' {
  const code = (e as { code?: unknown })?.code;
  return typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) ? 'db-rejected' : 'projection-error';
}

/** The dead letter of an event that passed validation and that the database or a projection refused. */
export function rejectedEvent(s: SourcedEvent, e: unknown): DeadLetter {
  return {
    topic: s.topic ?? '',
    partition: s.partition ?? -1,
    offset: s.offset ?? -1,
    key: null,
    // the bytes as received, so a re-drive sends exactly what the producer sent
    value: s.raw ?? Buffer.from(JSON.stringify(s.event)),
    code: rejectionCode(e),
    reason: describeFailure(e).slice(0, 500),
    eventId: s.event.id,
  };
}

/**
 * Runs `one` for each event under a savepoint of the caller's transaction: an event whose work fails with a
 * data failure is rolled back alone and becomes a dead letter, and its neighbours go on; any other failure
 * is thrown (the batch fails whole). Returns what the events that went through gave, and the dead letters.
 */
export async function isolateEach<T>(
  c: PoolClient,
  events: readonly SourcedEvent[],
  one: (event: SourcedEvent) => Promise<T>,
): Promise<{ done: T[]; rejected: DeadLetter[] }> {
  const done: T[] = [];
  const rejected: DeadLetter[] = [];
  for (const s of events) {
    await c.query('SAVEPOINT one_event');
    try {
      const result = await one(s);
      await c.query('RELEASE SAVEPOINT one_event');
      done.push(result);
    } catch (e) {
      await c.query('ROLLBACK TO SAVEPOINT one_event');
      if (!isDataFailure(e)) throw e;
      rejected.push(rejectedEvent(s, e));
    }
  }
  return { done, rejected };
}

/** Stores dead letters in the caller's transaction; one per position (a batch applied again adds none). */
export async function insertDeadLetters(c: PoolClient, dead: readonly DeadLetter[]): Promise<void> {
  await c.query(
    `INSERT INTO dead_letters (topic, partition, "offset", message_key, message_value, reason_code, reason, event_id)
     SELECT * FROM unnest($1::text[], $2::int[], $3::bigint[], $4::bytea[], $5::bytea[], $6::text[], $7::text[], $8::bigint[])
     ON CONFLICT ON CONSTRAINT dead_letters_position_uq DO NOTHING`,
    [
      dead.map((d) => d.topic),
      dead.map((d) => d.partition),
      dead.map((d) => d.offset),
      dead.map((d) => d.key),
      dead.map((d) => d.value),
      dead.map((d) => d.code),
      // a reason quotes the message, which may hold U+0000; Postgres text cannot
      dead.map((d) => storableText(d.reason)),
      dead.map((d) => d.eventId),
    ],
  );
}
