/**
 * The wire shape of GET /api/admin/console/operations and of one dead letter: written once, read by the api
 * (operations.service.ts) and by the console's page (apps/console/src/operations.tsx). No imports: the
 * console's bundle takes the types only.
 */
export type PartitionState = 'caught-up' | 'behind' | 'stalled' | 'unknown';

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
    byReason: { reason: string; total: number; pending: number }[];
    latest: DeadLetterSummary[];
  };
  rebuild: { version: number; schema: string; applied: number; target: number; percent: number } | null;
}

export interface DeadLetterSummary {
  id: number;
  partition: number;
  offset: number;
  reasonCode: string;
  reason: string;
  eventId: number | null;
  createdAt: string;
  redrivenAt: string | null;
}

export interface DeadLetterDetail extends DeadLetterSummary {
  topic: string;
  redriveOutcome: string | null;
  key: string | null;
  /** the message value as UTF-8 text, or `base64:`… when it is not UTF-8; cut at MAX_VALUE_CHARS */
  value: string | null;
  valueBytes: number;
  truncated: boolean;
}
