import type { RowQueryable } from '@flaglens/persistence';
import type { DeadLetter, DeadLetterCount } from './operations.types';

/** A dead letter with its message as stored: the raw key and value. */
export interface DeadLetterWithMessage extends DeadLetter {
  key: Buffer | null;
  value: Buffer | null;
}

export interface DeadLetterFilter {
  reason?: string;
  id?: number;
  /** only those not re-driven yet */
  pending?: boolean;
  /** keyset: ids above this one */
  afterId?: number;
  limit: number;
  /** `newest`: the highest ids first (default: oldest first) */
  order?: 'oldest' | 'newest';
}

export interface DeadLetterCounts {
  total: number;
  pending: number;
  /** by reason code, in code order */
  byReason: DeadLetterCount[];
}

const COLUMNS = `id, topic, partition, "offset", reason_code, reason, event_id, created_at, redriven_at, redrive_outcome`;

interface Raw {
  id: string;
  topic: string;
  partition: number;
  offset: string;
  reason_code: string;
  reason: string;
  event_id: string | null;
  created_at: Date;
  redriven_at: Date | null;
  redrive_outcome: string | null;
  message_key?: Buffer | null;
  message_value?: Buffer | null;
}

function toDeadLetter(r: Raw): DeadLetter {
  return {
    id: Number(r.id),
    topic: r.topic,
    partition: r.partition,
    offset: Number(r.offset),
    reasonCode: r.reason_code,
    reason: r.reason,
    eventId: r.event_id === null ? null : Number(r.event_id),
    createdAt: r.created_at.toISOString(),
    redrivenAt: r.redriven_at ? r.redriven_at.toISOString() : null,
    redriveOutcome: r.redrive_outcome,
  };
}

const withMessage = (r: Raw): DeadLetterWithMessage => ({
  ...toDeadLetter(r),
  key: r.message_key ?? null,
  value: r.message_value ?? null,
});

/**
 * What operators read of `public.dead_letters` (they survive rebuilds), for the CLI's `dead-letters` and
 * `status`, its re-drive, and the console's Operations page. The pipeline's own statements (storing dead
 * letters, marking them re-driven, a rebuild's look-up of re-driven positions) stay in the write path.
 */
export class DeadLettersReadModel {
  constructor(private readonly db: RowQueryable) {}

  /** Dead letters by `f`, without their message. */
  async list(f: DeadLetterFilter): Promise<DeadLetter[]> {
    return (await this.select(f, false)).map(toDeadLetter);
  }

  /** One dead letter with its message, or null. */
  async get(id: number): Promise<DeadLetterWithMessage | null> {
    const [row] = await this.select({ id, limit: 1 }, true);
    return row ? withMessage(row) : null;
  }

  /** These dead letters with their messages, in id order. */
  async withValues(ids: number[]): Promise<DeadLetterWithMessage[]> {
    const rows = (await this.db.query(
      `SELECT ${COLUMNS}, message_key, message_value FROM public.dead_letters WHERE id = ANY($1::bigint[]) ORDER BY id`,
      [ids],
    )) as Raw[];
    return rows.map(withMessage);
  }

  /** Pending dead letters (filtered, keyset from `afterId`) with the size of their message, without it. */
  async pendingSizes(
    f: Omit<DeadLetterFilter, 'pending' | 'order'>,
  ): Promise<{ id: number; bytes: number }[]> {
    const where = ['redriven_at IS NULL'];
    const params: unknown[] = [];
    if (f.reason !== undefined) where.push(`reason_code = $${params.push(f.reason)}`);
    if (f.id !== undefined) where.push(`id = $${params.push(f.id)}`);
    if (f.afterId !== undefined) where.push(`id > $${params.push(f.afterId)}`);
    const rows = (await this.db.query(
      `SELECT id, COALESCE(octet_length(message_value), 0) + COALESCE(octet_length(message_key), 0) AS bytes
         FROM public.dead_letters WHERE ${where.join(' AND ')} ORDER BY id LIMIT $${params.push(f.limit)}`,
      params,
    )) as { id: string; bytes: number }[];
    return rows.map((r) => ({ id: Number(r.id), bytes: Number(r.bytes) }));
  }

  /** How many dead letters there are, and how many are pending (not re-driven), in all and by reason code. */
  async counts(): Promise<DeadLetterCounts> {
    const rows = (await this.db.query(
      `SELECT reason_code, count(*) AS total, count(*) FILTER (WHERE redriven_at IS NULL) AS pending
         FROM public.dead_letters GROUP BY reason_code ORDER BY reason_code`,
    )) as { reason_code: string; total: string; pending: string }[];
    const byReason = rows.map((r) => ({
      reason: r.reason_code,
      total: Number(r.total),
      pending: Number(r.pending),
    }));
    return {
      total: byReason.reduce((n, r) => n + r.total, 0),
      pending: byReason.reduce((n, r) => n + r.pending, 0),
      byReason,
    };
  }

  private async select(f: DeadLetterFilter, withMessages: boolean): Promise<Raw[]> {
    const where: string[] = [];
    const params: unknown[] = [];
    if (f.reason !== undefined) where.push(`reason_code = $${params.push(f.reason)}`);
    if (f.id !== undefined) where.push(`id = $${params.push(f.id)}`);
    if (f.pending) where.push('redriven_at IS NULL');
    if (f.afterId !== undefined) where.push(`id > $${params.push(f.afterId)}`);
    return (await this.db.query(
      `SELECT ${COLUMNS}${withMessages ? ', message_key, message_value' : ''} FROM public.dead_letters
        ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY id${f.order === 'newest' ? ' DESC' : ''} LIMIT $${params.push(f.limit)}`,
      params,
    )) as Raw[];
  }
}
