import { Injectable, OnModuleDestroy } from '@nestjs/common';
import type { Admin } from 'kafkajs';
import { AppConfig } from '@flaglens/config';
import { createKafka, type PartitionWatermarks } from '@flaglens/kafka';
import { assertSchemaName } from '@flaglens/persistence';
// the small modules, not the packages' indexes: the api loads no consumer or connector code
import { rebuildGroupOf } from '@flaglens/pipeline/rebuild-group';
import { PositionStore } from '@flaglens/source/position-store';
import { ProjectionReads } from '../read-db/projection-reads.service';

import type {
  DeadLetterDetail,
  DeadLetterSummary,
  OperationsStatus,
  PartitionState,
} from './operations.types';

export type { DeadLetterDetail, DeadLetterSummary, OperationsStatus, PartitionState };

const MAX_VALUE_CHARS = 64 * 1024;
/** Answers are computed at most this often, however many operators' pages poll. */
const CACHE_MS = 2000;

/** "Caught up", "behind" or "stalled": behind with a stored position that has not moved for `stallSeconds`. */
export function partitionState(
  lag: number | null,
  updatedAt: string | null,
  nowMs: number,
  stallSeconds: number,
): PartitionState {
  if (lag === null) return 'unknown';
  if (lag === 0) return 'caught-up';
  if (updatedAt === null) return 'stalled';
  return nowMs - Date.parse(updatedAt) >= stallSeconds * 1000 ? 'stalled' : 'behind';
}

function text(buf: Buffer | null): { text: string | null; bytes: number; truncated: boolean } {
  if (buf === null) return { text: null, bytes: 0, truncated: false };
  const s = buf.toString('utf8');
  if (!Buffer.from(s, 'utf8').equals(buf)) {
    const cut = buf.length > (MAX_VALUE_CHARS * 3) / 4;
    return {
      text: `base64:${buf.subarray(0, (MAX_VALUE_CHARS * 3) / 4).toString('base64')}`,
      bytes: buf.length,
      truncated: cut,
    };
  }
  return { text: s.slice(0, MAX_VALUE_CHARS), bytes: buf.length, truncated: s.length > MAX_VALUE_CHARS };
}

/**
 * What the CLI's `status` shows, for the console's Operations page, read by the api where it lives: the
 * positions, dead letters, connectors and versions from Postgres (tables the projector, the connector and a
 * rebuild write), the high-water marks from the broker (one admin connection, kept). No call reaches the
 * projector's process: the page works whichever projector instance (or none) runs.
 */
@Injectable()
export class OperationsService implements OnModuleDestroy {
  private admin?: Promise<Admin>;
  private last?: { at: number; value: Promise<OperationsStatus> };

  constructor(
    private readonly config: AppConfig,
    private readonly reads: ProjectionReads,
  ) {}

  status(): Promise<OperationsStatus> {
    const now = Date.now();
    if (this.last && now - this.last.at < CACHE_MS) return this.last.value;
    const value = this.compute();
    this.last = { at: now, value };
    value.catch(() => (this.last = undefined));
    return value;
  }

  async deadLetter(id: number): Promise<DeadLetterDetail | null> {
    const r = await this.reads
      .pool()
      .query<DeadLetterRaw & { message_key: Buffer | null; message_value: Buffer | null }>(
        `SELECT ${DL_COLUMNS}, topic, redrive_outcome, message_key, message_value FROM public.dead_letters WHERE id = $1`,
        [id],
      );
    const row = r.rows[0];
    if (!row) return null;
    const value = text(row.message_value);
    return {
      ...deadLetterSummary(row),
      topic: row.topic,
      redriveOutcome: row.redrive_outcome,
      key: text(row.message_key).text,
      value: value.text,
      valueBytes: value.bytes,
      truncated: value.truncated,
    };
  }

  private async watermarks(): Promise<PartitionWatermarks[]> {
    this.admin ??= (async () => {
      const kafka = createKafka({
        brokers: this.config.KAFKA_BROKERS,
        clientId: `${this.config.KAFKA_CLIENT_ID}-api-operations`,
        retries: 0,
        log: () => undefined,
      });
      const admin = kafka.admin();
      await admin.connect();
      return admin;
    })();
    try {
      const admin = await this.admin;
      const offsets = await admin.fetchTopicOffsets(this.config.KAFKA_TOPIC);
      return offsets
        .map((o) => ({ partition: o.partition, low: Number(o.low), high: Number(o.high) }))
        .sort((a, b) => a.partition - b.partition);
    } catch (e) {
      const admin = this.admin;
      this.admin = undefined;
      void admin.then((a) => a.disconnect()).catch(() => undefined);
      throw e;
    }
  }

  private async compute(): Promise<OperationsStatus> {
    const { KAFKA_TOPIC: topic, KAFKA_GROUP_ID: group, PROJECTOR_STALL_SECONDS: stallSeconds } = this.config;
    const pool = this.reads.pool();
    const q = async <T>(sql: string, params: unknown[] = []): Promise<T[]> =>
      (await pool.query(sql, params)).rows as T[];
    let marks: PartitionWatermarks[] | null = null;
    let brokerError: string | null = null;
    const [marksResult, versions, stored, reasons, latest, sources] = await Promise.all([
      this.watermarks().catch((e: Error) => {
        brokerError = e.message;
        return null;
      }),
      q<{ version: number; schema_name: string; status: string }>(
        `SELECT version, schema_name, status FROM public.projection_versions WHERE status IN ('active', 'building') ORDER BY version`,
      ),
      q<{ partition: number; next_offset: string; last_event_at: Date | null; updated_at: Date | null }>(
        `SELECT partition, next_offset, last_event_at, updated_at FROM projector_offsets WHERE group_id = $1 AND topic = $2`,
        [group, topic],
      ),
      q<{ reason_code: string; total: string; pending: string }>(
        `SELECT reason_code, count(*) AS total, count(*) FILTER (WHERE redriven_at IS NULL) AS pending
           FROM public.dead_letters GROUP BY reason_code ORDER BY reason_code`,
      ),
      q<DeadLetterRaw>(`SELECT ${DL_COLUMNS} FROM public.dead_letters ORDER BY id DESC LIMIT 50`),
      PositionStore.list(async (sql) => (await pool.query(sql)).rows as unknown[]),
    ]);
    marks = marksResult;
    const nowMs = Date.now();
    const byPartition = new Map(stored.map((s) => [s.partition, s]));
    const partitionIds = marks
      ? marks.map((m) => m.partition)
      : [...byPartition.keys()].sort((a, b) => a - b);
    const high = new Map((marks ?? []).map((m) => [m.partition, m.high]));
    const partitions = partitionIds.map((p) => {
      const s = byPartition.get(p);
      const h = high.get(p) ?? null;
      const storedOffset = s ? Number(s.next_offset) : null;
      const lag = h === null ? null : Math.max(0, h - (storedOffset ?? 0));
      const lastEventAt = s?.last_event_at?.toISOString() ?? null;
      const updatedAt = s?.updated_at?.toISOString() ?? null;
      const lagSeconds =
        lag === null
          ? null
          : lag === 0
            ? 0
            : lastEventAt === null
              ? null
              : Math.max(0, (nowMs - Date.parse(lastEventAt)) / 1000);
      return {
        partition: p,
        storedOffset,
        highWatermark: h,
        lag,
        lagSeconds: lagSeconds === null ? null : Math.round(lagSeconds * 10) / 10,
        lastEventAt,
        updatedAt,
        status: partitionState(lag, updatedAt, nowMs, stallSeconds),
      };
    });
    const active = versions.find((v) => v.status === 'active');
    const building = versions.filter((v) => v.status === 'building').at(-1);
    let rebuild: OperationsStatus['rebuild'] = null;
    if (building) {
      const mine = await q<{ n: string }>(
        `SELECT COALESCE(sum(next_offset), 0) AS n FROM ${assertSchemaName(building.schema_name)}.projector_offsets
          WHERE group_id = $1 AND topic = $2`,
        [rebuildGroupOf(group, building.version), topic],
      ).catch(() => [{ n: '0' }]);
      const applied = Number(mine[0].n);
      const target = (marks ?? []).reduce((n, m) => n + m.high, 0);
      rebuild = {
        version: building.version,
        schema: building.schema_name,
        applied,
        target,
        percent: target > 0 ? Math.min(100, Math.round((applied / target) * 1000) / 10) : 0,
      };
    }
    return {
      at: new Date(nowMs).toISOString(),
      topic,
      group,
      stallSeconds,
      broker: { ok: marks !== null, error: brokerError },
      projectionVersion: active ? { version: active.version, schema: active.schema_name } : null,
      partitions,
      lag: marks ? partitions.reduce((n, p) => n + (p.lag ?? 0), 0) : null,
      sources: sources.map((x) => ({
        source: x.source,
        origin: x.origin,
        state: x.status?.state ?? 'unknown',
        position: x.position.hwm ?? null,
        lagRows: x.status?.lagRows ?? null,
        lagSeconds: x.status?.lagSeconds ?? null,
        openGaps: x.status?.openGaps ?? 0,
        lastPollAt: x.status?.lastPollAt ?? null,
        updatedAt: x.updatedAt,
      })),
      deadLetters: {
        total: reasons.reduce((n, r) => n + Number(r.total), 0),
        pending: reasons.reduce((n, r) => n + Number(r.pending), 0),
        byReason: reasons.map((r) => ({
          reason: r.reason_code,
          total: Number(r.total),
          pending: Number(r.pending),
        })),
        latest: latest.map(deadLetterSummary),
      },
      rebuild,
    };
  }

  async onModuleDestroy(): Promise<void> {
    const admin = this.admin;
    this.admin = undefined;
    if (admin) await admin.then((a) => a.disconnect()).catch(() => undefined);
  }
}

const DL_COLUMNS = `id, partition, "offset", reason_code, reason, event_id, created_at, redriven_at`;

interface DeadLetterRaw {
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
}

function deadLetterSummary(r: DeadLetterRaw): DeadLetterSummary {
  return {
    id: Number(r.id),
    partition: r.partition,
    offset: Number(r.offset),
    reasonCode: r.reason_code,
    reason: r.reason,
    eventId: r.event_id === null ? null : Number(r.event_id),
    createdAt: r.created_at.toISOString(),
    redrivenAt: r.redriven_at ? r.redriven_at.toISOString() : null,
  };
}
