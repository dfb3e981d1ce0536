/**
 * The operations feature's shapes: one dead letter as read (`DeadLetter`), and the wire shape of
 * GET /api/admin/console/operations and of one dead letter, which the api answers
 * (apps/api/src/console/operations.service.ts) and the console's page reads (apps/console/src/operations.tsx).
 * No imports: the console's bundle takes the types only.
 */

/** A partition by the stall rule (partition-state.logic.ts `stallState`). */
export type PartitionState = 'caught-up' | 'behind' | 'stalled' | 'unknown';

/** One row of `public.dead_letters` without its message, as `DeadLettersReadModel` reads it. */
export interface DeadLetter {
  id: number;
  topic: string;
  partition: number;
  offset: number;
  reasonCode: string;
  reason: string;
  eventId: number | null;
  createdAt: string;
  redrivenAt: string | null;
  redriveOutcome: string | null;
}

/** A dead letter in the operations answer's `latest` list. */
export type DeadLetterSummary = Omit<DeadLetter, 'topic' | 'redriveOutcome'>;

/** One dead letter with its message, as the console shows it. */
export interface DeadLetterDetail extends DeadLetter {
  key: string | null;
  /** the message value as UTF-8 text, or `base64:`… when it is not UTF-8; cut at 64 KiB */
  value: string | null;
  valueBytes: number;
  truncated: boolean;
}

export interface OperationsStatus {
  at: string;
  topic: string;
  group: string;
  stallSeconds: number;
  /** null when the broker did not answer (the partitions are then those stored, lag unknown) */
  broker: { ok: boolean; error: string | null };
  projectionVersion: { version: number; schema: string } | null;
  partitions: {
    partition: number;
    storedOffset: number | null;
    highWatermark: number | null;
    lag: number | null;
    lagSeconds: number | null;
    lastEventAt: string | null;
    updatedAt: string | null;
    status: PartitionState;
  }[];
  lag: number | null;
  sources: {
    source: string;
    origin: string;
    state: string;
    position: number | string | null;
    lagRows: number | null;
    lagSeconds: number | null;
    openGaps: number;
    lastPollAt: string | null;
    updatedAt: string;
  }[];
  deadLetters: {
    total: number;
    pending: number;
    byReason: DeadLetterCount[];
    latest: DeadLetterSummary[];
  };
  rebuild: { version: number; schema: string; applied: number; target: number; percent: number } | null;
}

/** Dead letters of one reason code: all of them, and those not re-driven yet. */
export interface DeadLetterCount {
  reason: string;
  total: number;
  pending: number;
}
