import type { RowQueryable } from '@flaglens/persistence';
import { terminalText } from '../terminal-text';

export interface DeadLetterRow {
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

export interface DeadLetterDetail extends DeadLetterRow {
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
}

const COLUMNS = `id, topic, partition, "offset", reason_code, reason, event_id, created_at, redriven_at, redrive_outcome`;

type Raw = {
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
};

function toRow(r: Raw): DeadLetterRow {
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

/** Queries over `public.dead_letters` (they survive rebuilds). */
export class DeadLettersReadModel {
  constructor(private readonly db: RowQueryable) {}

  async list(f: DeadLetterFilter, withValues = false): Promise<DeadLetterDetail[]> {
    const where: string[] = [];
    const params: unknown[] = [];
    if (f.reason !== undefined) where.push(`reason_code = $${params.push(f.reason)}`);
    if (f.id !== undefined) where.push(`id = $${params.push(f.id)}`);
    if (f.pending) where.push('redriven_at IS NULL');
    if (f.afterId !== undefined) where.push(`id > $${params.push(f.afterId)}`);
    const rows = (await this.db.query(
      `SELECT ${COLUMNS}${withValues ? ', message_key, message_value' : ''} FROM public.dead_letters
        ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY id LIMIT $${params.push(f.limit)}`,
      params,
    )) as Raw[];
    return rows.map((r) => ({ ...toRow(r), key: r.message_key ?? null, value: r.message_value ?? null }));
  }

  /** Pending dead letters (filtered, keyset from `afterId`) with the size of their value, without the value. */
  async pendingSizes(f: Omit<DeadLetterFilter, 'pending'>): Promise<{ id: number; bytes: number }[]> {
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

  /** These dead letters with their key and value, in id order. */
  async withValues(ids: number[]): Promise<DeadLetterDetail[]> {
    const rows = (await this.db.query(
      `SELECT ${COLUMNS}, message_key, message_value FROM public.dead_letters WHERE id = ANY($1::bigint[]) ORDER BY id`,
      [ids],
    )) as Raw[];
    return rows.map((r) => ({ ...toRow(r), key: r.message_key ?? null, value: r.message_value ?? null }));
  }

  async get(id: number): Promise<DeadLetterDetail | null> {
    return (await this.list({ id, limit: 1 }, true))[0] ?? null;
  }

  async counts(): Promise<{ total: number; pending: number; byReason: Record<string, number> }> {
    const rows = (await this.db.query(
      `SELECT reason_code, count(*) AS total, count(*) FILTER (WHERE redriven_at IS NULL) AS pending
         FROM public.dead_letters GROUP BY reason_code ORDER BY reason_code`,
    )) as { reason_code: string; total: string; pending: string }[];
    return {
      total: rows.reduce((n, r) => n + Number(r.total), 0),
      pending: rows.reduce((n, r) => n + Number(r.pending), 0),
      byReason: Object.fromEntries(rows.map((r) => [r.reason_code, Number(r.pending)])),
    };
  }
}

/**
 * A raw message value for a terminal: UTF-8 JSON-escaped, then everything a terminal may act on escaped
 * (`terminalText`), truncated; bytes that are not UTF-8 are shown as base64.
 */
export function safeRawValue(value: Buffer | null, max = 2000): string {
  if (value === null) return '(null)';
  if (value.length === 0) return '(empty)';
  const text = value.toString('utf8');
  const isText = Buffer.from(text, 'utf8').equals(value);
  const shown = isText
    ? terminalText(JSON.stringify(text.slice(0, max)).slice(1, -1))
    : `base64:${value.subarray(0, max).toString('base64')}`;
  const cut = isText ? text.length > max : value.length > max;
  return cut ? `${shown}… (${value.length} bytes, truncated)` : shown;
}
