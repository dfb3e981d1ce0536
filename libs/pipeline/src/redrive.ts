import type { PoolClient } from 'pg';
import type { SourcedEvent } from '@flaglens/projections';
import type { BatchApplier } from './batch-applier';
import { isDataFailure } from './dead-letters';

/** A dead letter whose raw value now passes validation, with the event it carries. */
export interface RedriveItem {
  deadLetterId: number;
  event: SourcedEvent;
}

export interface RedriveResult {
  deadLetterId: number;
  /** stored: newly projected; duplicate: its id was already in the event log; already-redriven: left alone */
  outcome: 'stored' | 'duplicate' | 'db-rejected' | 'already-redriven';
  reason?: string;
}

/**
 * Re-drives dead letters whose stored value is now valid: the events go through the batches' path (event log
 * with id dedupe, then every projection, the change feed; BatchApplier.applyEvents) in ONE transaction on the
 * applier's version, and each dead letter is marked (`redriven_at`, `redrive_outcome`) in that same transaction.
 * No offset moves. Dead letters already re-driven (by a concurrent or earlier run) are left alone: exactly once.
 * An event the database or a projection refuses stays a dead letter, with the reason.
 */
export async function applyRedrive(applier: BatchApplier, items: RedriveItem[]): Promise<RedriveResult[]> {
  if (items.length === 0) return [];
  try {
    return await applier.transaction((c) => redriveIn(c, applier, items, false));
  } catch (e) {
    if (!isDataFailure(e)) throw e;
    return applier.transaction((c) => redriveIn(c, applier, items, true));
  }
}

async function redriveIn(
  c: PoolClient,
  applier: BatchApplier,
  items: RedriveItem[],
  isolate: boolean,
): Promise<RedriveResult[]> {
  const pending = await c.query<{ id: string }>(
    `SELECT id FROM public.dead_letters WHERE id = ANY($1::bigint[]) AND redriven_at IS NULL FOR UPDATE`,
    [items.map((i) => i.deadLetterId)],
  );
  const open = new Set(pending.rows.map((r) => Number(r.id)));
  const todo = items.filter((i) => open.has(i.deadLetterId));
  const { stored, rejected } = await applier.applyEvents(
    c,
    todo.map((i) => i.event),
    isolate,
  );
  const storedIds = new Set(stored.map((s) => s.event.id));
  const rejectedIds = new Map(rejected.map((r) => [r.eventId, r.reason]));
  const results: RedriveResult[] = items.map((i) => {
    if (!open.has(i.deadLetterId)) return { deadLetterId: i.deadLetterId, outcome: 'already-redriven' };
    const id = i.event.event.id;
    if (rejectedIds.has(id))
      return { deadLetterId: i.deadLetterId, outcome: 'db-rejected', reason: rejectedIds.get(id) };
    if (storedIds.delete(id)) return { deadLetterId: i.deadLetterId, outcome: 'stored' };
    return { deadLetterId: i.deadLetterId, outcome: 'duplicate' };
  });
  const done = results.filter((r) => r.outcome === 'stored' || r.outcome === 'duplicate');
  const refused = results.filter((r) => r.outcome === 'db-rejected');
  if (done.length > 0)
    await c.query(
      `UPDATE public.dead_letters d SET redriven_at = now(), redrive_outcome = u.outcome
         FROM unnest($1::bigint[], $2::text[]) AS u(id, outcome) WHERE d.id = u.id`,
      [done.map((r) => r.deadLetterId), done.map((r) => r.outcome)],
    );
  if (refused.length > 0)
    await c.query(
      `UPDATE public.dead_letters d SET redrive_outcome = u.outcome
         FROM unnest($1::bigint[], $2::text[]) AS u(id, outcome) WHERE d.id = u.id`,
      [refused.map((r) => r.deadLetterId), refused.map((r) => `still invalid: db-rejected: ${r.reason}`)],
    );
  return results;
}
